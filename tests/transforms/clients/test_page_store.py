import pytest

from transforms.clients.page_store import PageStore, PageStoreWriter, title_hash


def record(i: int, html_size: int = 50) -> dict:
    return {"url": f"https://en.wikipedia.org/wiki/Page_{i}", "title": f"Page {i}",
            "kind": "wikipedia", "revision": 1000 + i, "text": f"Page {i} text é",
            "html": f"<html><body>{'x' * html_size}{i}</body></html>"}


def test_pages_round_trip_across_store_files(tmp_path):
    writer = PageStoreWriter(str(tmp_path), file_bytes=200)
    for i in range(30):
        assert writer.add(record(i, html_size=10 * i), title_key=f"Page_{i}") == i
    assert writer.close() == 30
    assert len(list((tmp_path / "pages").glob("store-*.bin"))) > 3
    store = PageStore(str(tmp_path), title_key_of=lambda meta: meta.url.rsplit("/", 1)[1])
    assert len(store) == 30
    for i in (0, 7, 29):
        page = store.get(i)
        assert page.doc_id == i and page.html == record(i, 10 * i)["html"]
        assert page.text == f"Page {i} text é" and page.revision == 1000 + i
        assert store.meta(i).url == page.url
    assert store.find_title("Page_17") == 17
    assert store.find_title("Page_99") is None


def test_title_hash_collisions_are_checked_against_the_stored_title(tmp_path, monkeypatch):
    monkeypatch.setattr("transforms.clients.page_store.title_hash", lambda key: 42)
    writer = PageStoreWriter(str(tmp_path))
    for i in range(3):
        writer.add(record(i), title_key=f"Page_{i}")
    writer.close()
    store = PageStore(str(tmp_path), title_key_of=lambda meta: meta.url.rsplit("/", 1)[1])
    assert [store.find_title(f"Page_{i}") for i in range(3)] == [0, 1, 2]
    assert store.find_title("Other") is None


def test_pages_without_a_title_key_and_an_empty_store(tmp_path):
    writer = PageStoreWriter(str(tmp_path / "one"))
    writer.add({**record(0), "kind": "web"})
    writer.close()
    assert PageStore(str(tmp_path / "one")).find_title("Page_0") is None
    PageStoreWriter(str(tmp_path / "empty")).close()
    empty = PageStore(str(tmp_path / "empty"))
    assert len(empty) == 0 and empty.find_title("Page_0") is None


def test_a_truncated_store_is_an_error_not_a_short_page(tmp_path):
    writer = PageStoreWriter(str(tmp_path))
    writer.add(record(0, html_size=5000))
    writer.close()
    path = tmp_path / "pages" / "store-00000.bin"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(OSError, match="truncated"):
        PageStore(str(tmp_path)).get(0)


def test_title_hash_is_stable():
    assert title_hash("Amazon_River") == title_hash("Amazon_River") != title_hash("Nile")
    assert title_hash("Amazon_River") == 0xEA98F009200D4CA0  # blake2b: no hash seed

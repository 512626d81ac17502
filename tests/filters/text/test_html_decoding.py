from filters.text.html_decoding import declared_charset, decode_html


def test_declared_meta_charset_cp1252():
    html = '<html><head><meta charset="windows-1252"></head><body>\u201cOK\u201d \u00a35'
    decoded = decode_html(html.encode("cp1252"))
    assert decoded.text.endswith("\u201cOK\u201d \u00a35")
    assert (decoded.encoding, decoded.method) == ("cp1252", "declared")


def test_header_charset_wins_over_meta():
    content = '<meta charset="utf-8"><p>caf\u00e9</p>'.encode("cp1252")
    assert declared_charset(content, "text/html; charset=windows-1252") == "cp1252"
    assert "caf\u00e9" in decode_html(content, "text/html; charset=windows-1252").text


def test_mislabelled_utf8_falls_back_to_cp1252():
    content = '<meta charset="utf-8"><p>\u2018quoted\u2019</p>'.encode("cp1252")
    decoded = decode_html(content)
    assert "\u2018quoted\u2019" in decoded.text
    assert decoded.method == "fallback"


def test_undecodable_bytes_are_replaced_not_raised():
    content = b"<p>ok \x81\x8d\x8f\x90\x9d</p>"
    decoded = decode_html(content)
    assert decoded.method == "replaced"
    assert decoded.text.startswith("<p>ok ")


def test_latin1_label_means_windows_1252():
    content = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
    content = (content + "\u20ac").encode("cp1252")
    assert decode_html(content).text.endswith("\u20ac")

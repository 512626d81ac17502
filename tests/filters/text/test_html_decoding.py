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


PAGE = ("<html><head><title>{0}</title></head><body><div class='story-body__inner'>"
        "<p>{1}</p></div></body></html>")
JAPANESE = PAGE.format("ニュース", "東京で大きな地震がありました。政府は対策を発表しました。"
                       "気象庁によると、津波の心配はないということです。")


def test_utf16_without_bom_is_detected():
    text = PAGE.format("Hello", "Hello there, world.")
    for codec in ("utf-16-le", "utf-16-be"):
        decoded = decode_html(text.encode(codec))
        assert (decoded.text, decoded.encoding, decoded.method) == (text, codec, "detected")


def test_undeclared_shift_jis_and_euc_jp_are_detected_not_mojibake():
    for codec in ("shift_jis", "euc_jp"):
        decoded = decode_html(JAPANESE.encode(codec))
        assert decoded.text == JAPANESE
        assert decoded.method == "detected"


def test_undeclared_windows_1252_stays_windows_1252():
    text = PAGE.format("Caf\u00e9", "The \u201cbest\u201d caf\u00e9 in Z\u00fcrich \u2013 "
                       "r\u00e9sum\u00e9s, na\u00efve \u00a35 S\u00e3o Paulo Stra\u00dfe")
    decoded = decode_html(text.encode("cp1252"))
    assert (decoded.text, decoded.encoding, decoded.method) == (text, "cp1252", "fallback")
    for snippet in ("<p>news the r\u00e9sum\u00e9</p>", "<p>and and \u00fcber S\u00e3o vu</p>"):
        assert decode_html(snippet.encode("cp1252")).text == snippet


def test_valid_utf8_and_declared_charsets_are_unchanged():
    decoded = decode_html(JAPANESE.encode("utf-8"))
    assert (decoded.text, decoded.encoding, decoded.method) == (JAPANESE, "utf-8", "default")
    declared = '<meta charset="euc-jp">' + JAPANESE
    decoded = decode_html(declared.encode("euc_jp"))
    assert (decoded.text, decoded.method) == (declared, "declared")
    decoded = decode_html(JAPANESE.encode("utf-16-le"), "text/html; charset=utf-16le")
    assert (decoded.text, decoded.method) == (JAPANESE, "declared")

"""PTB-like words of plain text (NQ §4.1): quotes, clitics, hyphens, dashes, symbols, what
stays whole, and the final period."""

from __future__ import annotations

from filters.nq.text_tokens import tokenize_text


def words(text: str) -> list[str]:
    return [token for _, _, token in tokenize_text(text)]


def test_quotes_become_ptb_quotes():
    assert words('He said "hello," then "bye".') == [
        "He", "said", "``", "hello", ",", "''", "then", "``", "bye", "''", "."]
    assert words("“curly” quotes") == ["``", "curly", "''", "quotes"]
    assert words('a " b " c') == ["a", "``", "b", "''", "c"]


def test_clitics_and_apostrophes():
    assert words("Earth's winds don't stop; I've seen Kids' Choice") == [
        "Earth", "'s", "winds", "do", "n't", "stop", ";", "I", "'ve", "seen", "Kids", "'",
        "Choice"]
    assert words("'Twas O'Bright's Humuhumunukunukuapua'a rock'n'roll it’s") == [
        "'", "Twas", "O'Bright", "'s", "Humuhumunukunukuapua'a", "rock'n'roll", "it", "'s"]
    assert words("word 'trade,' meaning") == ["word", "'", "trade", ",", "'", "meaning"]


def test_hyphens_split_except_after_corenlp_prefixes():
    assert words("high-pressure Disney-ABC 2007-06-20 Bân-lâm-gú") == [
        "high", "-", "pressure", "Disney", "-", "ABC", "2007", "-", "06", "-", "20", "Bân",
        "-", "lâm", "-", "gú"]
    assert words("non-profit mid-summer X-ray semi-protected Non-Stop") == [
        "non-profit", "mid-summer", "X-ray", "semi-protected", "Non-Stop"]


def test_dashes_brackets_and_ellipses_are_normalized():
    assert words("1940–1942 twice—in [edit] It... 208..145A …") == [
        "1940", "--", "1942", "twice", "--", "in", "(", "edit", ")", "It", "...", "208", "...",
        "145A", "..."]


def test_symbols_split_but_numbers_and_currency_stay_whole():
    assert words("$7 million, 7,731,004 people, 17.2 km, 57% at 05:08, 30°S, 72/100") == [
        "$7", "million", ",", "7,731,004", "people", ",", "17.2", "km", ",", "57", "%",
        "at", "05", ":", "08", ",", "30", "°", "S", ",", "72", "/", "100"]


def test_urls_domains_acronyms_and_initials_stay_whole():
    assert words('from "https://en.wikipedia.org/w/index.php?title=A&oldid=1".') == [
        "from", "``", "https://en.wikipedia.org/w/index.php?title=A&oldid=1", "''", "."]
    assert words("Usinfo.state.gov, nobelprize.org and HSM2onstage.co.uk") == [
        "Usinfo.state.gov", ",", "nobelprize.org", "and", "HSM2onstage.co.uk"]
    assert words("the U.S., a.k.a. America; A&M") == [
        "the", "U.S.", ",", "a.k.a.", "America", ";", "A&M"]
    assert words("G. E. Pieter & J. J. Thomson and Carol G. Braham") == [
        "G.E.", "Pieter", "&", "J.J.", "Thomson", "and", "Carol", "G.", "Braham"]


def test_final_period_rules():
    assert words("in the Caribbean. Archived on Random House. p. 1385.") == [
        "in", "the", "Caribbean", ".", "Archived", "on", "Random", "House", ".", "p.", "1385",
        "."]
    assert words("Marine Geology. 208 and Wayback Machine., HSM") == [
        "Marine", "Geology.", "208", "and", "Wayback", "Machine.", ",", "HSM"]
    assert words("Mr. Fulton, St. Clair, Inc. p. 110 and Girl vs. Monster") == [
        "Mr.", "Fulton", ",", "St.", "Clair", ",", "Inc.", "p.", "110", "and", "Girl", "vs.",
        "Monster"]
    assert words("Warren Jr.) and (second ed.). Taylor, Jr.") == [
        "Warren", "Jr", ".", ")", "and", "(", "second", "ed", ".", ")", ".", "Taylor", ",",
        "Jr", "."]

"""decode_html on legacy-encoded pages: declared by HTTP, by <meta>, or not at all."""

import pytest

from pipelines.extraction.encoding import (
    ENCODING_SOURCES,
    decide_encoding,
    decode_document,
    decode_html,
    detect_encoding,
)

SAMPLES = {
    "gbk": "我们的国家正在快速发展，经济和社会都取得了很大的进步。今天的新闻报道了城市交通的变化。",
    "shift_jis": "日本語のテキストです。今日は天気がいいので、公園に行きました。東京都に住んでいます。",
    "euc_jp": "日本語のテキストです。今日は天気がいいので、公園に行きました。東京都に住んでいます。",
    "windows-1251": "Сегодня хорошая погода, и мы пошли гулять в парк. Новости России и мира.",
}


def document(text: str, meta: str = "") -> str:
    return f"<html><head>{meta}<title>t</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize("charset", sorted(SAMPLES))
def test_declared_in_meta(charset):
    html = document(SAMPLES[charset], f'<meta charset="{charset}">')
    assert decode_html(html.encode(charset)) == html


@pytest.mark.parametrize("charset", sorted(SAMPLES))
def test_declared_in_http_equiv(charset):
    html = document(
        SAMPLES[charset], f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'
    )
    assert decode_html(html.encode(charset)) == html


@pytest.mark.parametrize("charset", sorted(SAMPLES))
def test_declared_by_http_only(charset):
    html = document(SAMPLES[charset])
    assert decode_html(html.encode(charset), declared_encoding=charset) == html


@pytest.mark.parametrize("charset", sorted(SAMPLES))
def test_undeclared_is_detected(charset):
    html = document(SAMPLES[charset])
    assert decode_html(html.encode(charset)) == html


def test_short_undeclared_texts_are_detected():
    assert decode_html("<p>北京</p>".encode("gbk")) == "<p>北京</p>"
    assert decode_html("<p>こんにちは</p>".encode("euc_jp")) == "<p>こんにちは</p>"
    assert decode_html("<p>Москва</p>".encode("cp1251")) == "<p>Москва</p>"
    assert decode_html("<p>naïve café</p>".encode("cp1252")) == "<p>naïve café</p>"


def test_http_charset_wins_over_meta():
    html = document(SAMPLES["gbk"], '<meta charset="shift_jis">')
    assert decode_html(html.encode("gbk"), declared_encoding="gbk") == html


def test_rendered_utf8_with_a_stale_legacy_meta_is_utf8():
    # A browser's serialized DOM is UTF-8 but keeps the page's own <meta charset="gbk">.
    html = document(SAMPLES["gbk"], '<meta charset="gbk">')
    assert decode_html(html.encode("utf-8")) == html


def test_byte_order_marks():
    html = document("BOM ✓")
    assert decode_html(b"\xef\xbb\xbf" + html.encode("utf-8")) == html
    assert decode_html(html.encode("utf-16")) == html


def test_unknown_declared_charset_falls_back_to_the_rest():
    html = document(SAMPLES["windows-1251"])
    assert decode_html(html.encode("cp1251"), declared_encoding="no-such-charset") == html


def test_ascii_needs_no_detection_and_str_is_refused():
    assert detect_encoding(b"<p>plain</p>") is None
    assert decode_html(b"<p>plain</p>") == "<p>plain</p>"
    with pytest.raises(TypeError, match="needs bytes"):
        decode_html("<p>already text</p>")


@pytest.mark.parametrize(
    ("body", "declared", "decision"),
    [
        ("\ufeff<p>é</p>".encode("utf-8"), "iso-8859-1", ("utf-8", "bom")),
        ("<p>Диета</p>".encode(), "iso-8859-1", ("utf-8", "utf-8")),
        ("<p>Диета</p>".encode("cp1251"), "windows-1251", ("cp1251", "http")),
        ('<meta charset="gbk"><p>我们的国家</p>'.encode("gbk"), None, ("gb18030", "meta")),
        (document(SAMPLES["shift_jis"]).encode("shift_jis"), None, ("cp932", "detected")),
        (b"<p>plain ASCII</p>", None, ("utf-8", "default")),
    ],
)
def test_decide_encoding_names_its_evidence(body, declared, decision):
    decided = decide_encoding(body, declared)
    assert (decided.encoding, decided.source) == decision
    assert decided.source in ENCODING_SOURCES
    text, same = decode_document(body, declared)
    assert same == decided and text == decode_html(body, declared) and not text.startswith("\ufeff")

"""The multilingual extraction benchmark: Debian FAQ sections as posts (translated ones
only), Markdown that renders back to the text, and the benchmark end to end on styled
sites in Russian and Japanese."""

import html as html_module
import importlib.util
import json
import sys

import pytest

from crawler.styled.faq import FaqUnavailable, faq_posts, markdown_text
from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import multilingual

RU = " ".join(["Debian — это свободная операционная система, которую создают добровольцы со всего мира."] * 3)
JA = "Debian は世界中のボランティアが作る自由なオペレーティングシステムです。" * 3
EN = " ".join(["Debian is a free operating system made by volunteers from all over the world."] * 3)


def chapter(sections: list[tuple[str, list[str]]]) -> str:
    """A DocBook chunk as the Debian FAQ has it: a navigation header, a table of
    contents, then one ``div.section`` per section."""
    body = "".join(
        f'<div class="section"><div class="titlepage"><div><div><h2 class="title">{title}</h2>'
        f"</div></div></div>{''.join(f'<p>{p}</p>' for p in paragraphs)}</div>"
        for title, paragraphs in sections
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="navheader"><a href="index.html">Prev</a></div>'
        '<div class="chapter"><div class="toc"><p><strong>Contents</strong></p></div>'
        f'{body}</div><div class="navfooter"><a href="next.html">Next</a></div></body></html>'
    )


@pytest.fixture(scope="module")
def faq(tmp_path_factory):
    """English at the root; Russian with one section left in English; Japanese with
    one section in Latin letters."""
    root = tmp_path_factory.mktemp("faq")
    english = [(f"1.{i}. Question {i}", [f"{EN} Part {i}.", f"{EN} More {i}."]) for i in range(1, 5)]
    (root / "basic.en.html").write_text(chapter(english), encoding="utf-8")
    russian = [(f"1.{i}. Вопрос {i}", [f"{RU} Часть {i}.", f"{RU} Ещё {i}."]) for i in range(1, 4)]
    russian.append(("1.4. Question 4", [f"{EN} Part 4.", f"{EN} More 4."]))
    (root / "ru").mkdir()
    (root / "ru" / "basic.ru.html").write_text(chapter(russian), encoding="utf-8")
    japanese = [(f"1.{i}. 質問 {i}", [f"{JA} 第{i}部。", f"{JA} 追記{i}。"]) for i in range(1, 4)]
    japanese.append(("1.4. Shitsumon", ["Debian wa sekaijuu no borantia ga tsukuru jiyuu na OS desu. " * 3]))
    (root / "ja").mkdir()
    (root / "ja" / "basic.ja.html").write_text(chapter(japanese), encoding="utf-8")
    return root


def test_every_translated_section_is_a_post_and_the_untranslated_ones_are_not(faq):
    russian = faq_posts(faq, "ru", seed=1)
    assert sorted(p.title for p in russian) == ["1.1. Вопрос 1", "1.2. Вопрос 2", "1.3. Вопрос 3"]
    assert {p.paragraphs for p in russian if p.title == "1.2. Вопрос 2"} == {
        (f"{RU} Часть 2.", f"{RU} Ещё 2.")
    }
    assert sorted(p.title for p in faq_posts(faq, "ja", seed=1)) == [
        "1.1. 質問 1",
        "1.2. 質問 2",
        "1.3. 質問 3",
    ]
    assert len(faq_posts(faq, "en", seed=1)) == 4
    with pytest.raises(FaqUnavailable, match="apt install debian-faq-ko"):
        faq_posts(faq, "ko", seed=1)


def test_markdown_of_a_paragraph_renders_back_to_its_text():
    markdown = pytest.importorskip("markdown", reason="pip install -r requirements-data.txt")
    text = "Use <package> & `apt-get` -- *not* [dpkg](x) #1 + 2. > 1_000 ! {a|b}"
    html = markdown.markdown(markdown_text(text))
    assert html.startswith("<p>") and html.endswith("</p>")
    assert html_module.unescape(html.removeprefix("<p>").removesuffix("</p>")) == text
    assert (
        html_module.unescape(markdown.markdown(markdown_text(text), extensions=["tables"]))
        == f"<p>{text}</p>"
    )


@pytest.mark.e2e
def test_the_benchmark_scores_russian_and_japanese_posts_in_a_styled_site(faq, tmp_path, capsys):
    if importlib.util.find_spec("pelican") is None:
        pytest.skip("pelican is not installed (pip install -r requirements-data.txt)")
    out = tmp_path / "results.json"
    argv = ["--work", str(tmp_path / "work"), "--faq", str(faq), "--languages", "ru,ja"]
    argv += ["--themes", "pelican-notmyidea", "--posts-per-site", "3", "--extractors", "iawce,trafilatura"]
    assert multilingual.main([*argv, "--out", str(out)]) == 0
    tables = capsys.readouterr().out
    assert "| word F1 | ru | ja | all | median ms | × trafilatura |" in tables
    assert "| snippet F (pooled) | ru | ja | all |" in tables
    results = json.loads(out.read_text(encoding="utf-8"))
    assert [p["language"] for p in results["pages"]] == ["ru"] * 3 + ["ja"] * 3
    for name in ("iawce", "trafilatura"):
        summary = results["summaries"][name]
        assert summary["ru"]["pages"] == summary["ja"]["pages"] == 3
        # the post is found (CJK characters count one token each), the menus are not
        assert summary["ru"]["recall"] > 0.9 and summary["ja"]["recall"] > 0.9
        assert summary["all"]["snippet_precision"] > 0.5
    page = results["per_page"]["iawce"][3]
    assert page["with_total"] == 2 and page["without_total"] > 0
    # a second run reuses the built sites, and refuses a theme they lack
    assert multilingual.main(argv) == 0
    with pytest.raises(SystemExit, match="built without ablog-classic"):
        multilingual.main([*argv, "--themes", "pelican-notmyidea,ablog-classic"])  # the last --themes counts

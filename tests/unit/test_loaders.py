"""Loaders on real files of every supported format, and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragline.errors import LoaderError
from ragline.ingest.sandbox import parse_file
from ragline.models import Document

MB = 1024 * 1024


def load(path: Path, password: str | None = None, max_bytes: int = 50 * MB) -> list[Document | LoaderError]:
    return parse_file(str(path), path.name, password, max_bytes)


def only_doc(path: Path) -> Document:
    (doc,) = load(path)
    assert isinstance(doc, Document)
    return doc


def test_markdown_sections(tmp_path: Path) -> None:
    file = tmp_path / "guide.md"
    file.write_text("# Guide\n\nIntro text.\n\n## Fees\n\nWire fee is 5 EUR.\n\n```\n# not a heading\n```\n\n### Waivers\n\nStudents pay none.\n")
    doc = only_doc(file)
    assert doc.title == "Guide"
    sections = [(b.section, b.text.splitlines()[0]) for b in doc.blocks]
    assert sections[0] == ("Guide", "Intro text.")
    assert sections[1][0] == "Guide > Fees" and "# not a heading" in doc.blocks[1].text
    assert sections[2] == ("Guide > Fees > Waivers", "Students pay none.")


def test_html_visible_text_and_headings(tmp_path: Path) -> None:
    file = tmp_path / "page.html"
    file.write_text(
        "<html><head><title>Rates</title><style>p{color:red}</style><script>var secret=1</script></head>"
        "<body><nav>Home | About</nav><h1>Savings</h1><p>Rate is <b>2.5%</b> a year.</p>"
        "<h2>Fixed deposit</h2><ul><li>1 year: 3%</li><li>5 years: 3.4%</li></ul></body></html>"
    )
    doc = only_doc(file)
    assert doc.title == "Rates"
    text = doc.text
    assert "Rate is 2.5% a year." in text
    assert "secret" not in text and "color" not in text and "Home | About" not in text
    assert [b.section for b in doc.blocks] == ["Savings", "Savings > Fixed deposit"]
    assert "5 years: 3.4%" in doc.blocks[1].text


def test_docx_paragraphs_tables_and_headings(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = "Card policy"
    document.add_heading("Cards", level=1)
    document.add_paragraph("Lost cards are blocked within one hour.")
    document.add_heading("Limits", level=2)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Daily ATM", "500 EUR"
    table.cell(1, 0).text, table.cell(1, 1).text = "Online", "2000 EUR"
    file = tmp_path / "policy.docx"
    document.save(file)
    doc = only_doc(file)
    assert doc.title == "Card policy"
    assert doc.blocks[0].section == "Cards" and "blocked within one hour" in doc.blocks[0].text
    assert doc.blocks[1].section == "Cards > Limits" and "Daily ATM | 500 EUR" in doc.blocks[1].text


def test_txt_csv_json(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Plain words.\n")
    assert only_doc(tmp_path / "a.txt").text == "Plain words."
    (tmp_path / "t.csv").write_text("date,amount,merchant\n2024-01-02,12.50,Cafe Uno\n2024-01-03,80,Fuel\n")
    doc = only_doc(tmp_path / "t.csv")
    assert "date: 2024-01-02; amount: 12.50; merchant: Cafe Uno" in doc.text and doc.metadata["rows"] == 2
    (tmp_path / "r.json").write_text(json.dumps({"title": "Note", "text": "Body text", "year": 2020}))
    doc = only_doc(tmp_path / "r.json")
    assert (doc.title, doc.text, doc.metadata["year"]) == ("Note", "Body text", 2020)
    (tmp_path / "n.json").write_text(json.dumps([[{"k": {"deep": "value"}}]]))  # not an array of objects
    assert only_doc(tmp_path / "n.json").text == "[0][0].k.deep: value"


def test_jsonl_beir_records_and_bad_lines(tmp_path: Path) -> None:
    file = tmp_path / "corpus.jsonl"
    file.write_text(
        '{"_id": "4983", "title": "Microstructural development", "text": "Alterations of the architecture.", "metadata": {}}\n'
        "not json\n"
        '{"id": 7, "text": "Second record", "year": 2001}\n'
        '{"_id": "4983", "text": "duplicate id"}\n'
    )
    results = load(file)
    docs = [r for r in results if isinstance(r, Document)]
    errors = [r for r in results if isinstance(r, LoaderError)]
    assert [d.source for d in docs] == ["corpus.jsonl#4983", "corpus.jsonl#7"]
    assert docs[0].title == "Microstructural development" and docs[0].metadata["record_id"] == "4983"
    assert docs[1].metadata["year"] == 2001
    assert [e.path for e in errors] == ["corpus.jsonl:2", "corpus.jsonl:4"]
    assert "invalid JSON" in errors[0].reason and "duplicate id" in errors[1].reason


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"   \n\n", "no text content"),
        ("binary.txt", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00" * 50, "binary content"),
        ("fake.pdf", b"hello, I am not a pdf", "not a PDF"),
        ("fake.docx", b"plain text pretending", "not a .docx"),
        ("bad.json", b'{"a": ', "invalid JSON"),
        ("garbage.txt", bytes(range(128, 256)) * 40, "UTF-8"),
        ("song.mp3", b"ID3\x04\x00" * 10, "unsupported file type .mp3"),
        ("image.png", b"\x89PNG\r\n\x1a\n", "image"),  # truncated (or, without Tesseract, the install hint)
        ("broken.pdf", b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF", "PDF"),
    ],
)
def test_bad_input_names_file_and_reason(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    file = tmp_path / name
    file.write_bytes(content)
    with pytest.raises(LoaderError) as info:
        load(file)
    assert info.value.path == name
    assert reason in info.value.reason
    assert name in str(info.value)


def test_latin1_text_is_decoded_not_rejected(tmp_path: Path) -> None:
    file = tmp_path / "old.txt"
    file.write_bytes("Café déjà vu — naïve façade, über-große Straße.\n".encode("cp1252", errors="replace") * 5)
    assert "Café" in only_doc(file).text


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "big.txt"
    file.write_text("x" * 2048)
    with pytest.raises(LoaderError, match="over the .* limit"):
        load(file, max_bytes=1024)


def test_html_is_bounded_by_structure_before_it_is_parsed() -> None:
    """200,000 nested <div>s (the HTML5 tree builder is quadratic in nesting: minutes)
    are refused by a scan of the tags; so is a page past the element limit. Flat
    pages of unclosed <p>s and tag-like text in scripts and comments are not deep."""
    from ragline.ingest.loaders.html import HtmlLoader
    from ragline.ingest.loaders.options import LoadOptions

    loader = HtmlLoader()
    nested = ("<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000 + "</body></html>").encode()
    with pytest.raises(LoaderError, match=r"HTML elements nested more than 512 deep \(limits.max_html_depth\)"):
        loader.load(nested, "nested.html")
    many = ("<html><body>" + "<span>x</span>" * 2_000 + "</body></html>").encode()
    with pytest.raises(LoaderError, match=r"more than 1,000 HTML elements \(limits.max_html_nodes\)"):
        loader.load(many, "many.html", options=LoadOptions(max_html_nodes=1_000))
    assert loader.load(many, "many.html")[0].blocks[0].text.startswith("xxx")
    flat = "<html><body>" + "<p>para <b>bold</b><br>" * 5_000 + "<ul>" + "<li>item" * 2_000 + "</ul></body></html>"
    tricky = ("<html><body><!-- " + "<div>" * 5_000 + " --><script>var s = '" + "<div>" * 5_000 + "';</script>"
              "<div><div><p>kept</p></div></div></body></html>")
    for page in (flat, tricky):
        assert loader.load(page.encode(), "ok.html")[0].blocks
    legal = "<html><body>" + "<div>" * 500 + "deep but legal" + "</div>" * 500 + "</body></html>"
    assert loader.load(legal.encode(), "legal.html")[0].blocks[0].text == "deep but legal"

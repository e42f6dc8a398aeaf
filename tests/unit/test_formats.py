"""More formats on real files made with the libraries that write them: pptx (slides
as pages), xlsx (sheet and rows as sections), .eml (headers as metadata,
attachments ingested), EPUB and ODT; the .docx title; and the hostile-input
guarantees (no ZIP signature, zip bombs, entity declarations, deep nesting)."""

from __future__ import annotations

import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.errors import LoaderError
from ragline.ingest.sandbox import ParserSandbox, parse_file
from ragline.models import Document, Scope
from ragline.settings import LimitSettings


def load(path: Path) -> list[Document | LoaderError]:
    return parse_file(str(path), path.name, None, 50 << 20)


def only(path: Path) -> Document:
    (doc,) = load(path)
    assert isinstance(doc, Document)
    return doc


# -- pptx ---------------------------------------------------------------------------
def make_pptx(path: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Savings accounts"
    first.placeholders[1].text = "Easy Saver pays 3.1% AER.\nNo notice needed to withdraw."
    first.notes_slide.notes_text_frame.text = "Mention the bonus rate for students."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Fees"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for (r, c), text in {(0, 0): "Service", (0, 1): "Fee", (1, 0): "Wire transfer", (1, 1): "5 EUR"}.items():
        table.cell(r, c).text = text
    group = second.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(4), Inches(4), Inches(1)).text_frame.text = "Prices include VAT."
    deck.slides.add_slide(deck.slide_layouts[6])  # a blank slide: no block, and the numbering goes on
    deck.save(path)
    return path


def test_pptx_slides_are_pages(tmp_path: Path) -> None:
    doc = only(make_pptx(tmp_path / "products.pptx"))
    assert doc.title == "Savings accounts" and doc.metadata["slides"] == 3
    assert [(b.page, b.section) for b in doc.blocks] == [(1, "Savings accounts"), (2, "Fees")]
    assert "Notes: Mention the bonus rate" in doc.blocks[0].text
    assert "Wire transfer | 5 EUR" in doc.blocks[1].text and "Prices include VAT." in doc.blocks[1].text


# -- xlsx ---------------------------------------------------------------------------
def make_xlsx(path: Path, rows: int = 3) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    fees = book.active
    fees.title = "Fees"
    fees.append(["Service", "Fee (EUR)", "Notes"])
    for n in range(rows):
        fees.append([f"Service {n}", 5 + n, None if n % 2 else "waived for students"])
    fees.append([None, None, None])
    fees["B10"] = "=SUM(B2:B4)"  # a formula: only a cached value is read (a file saved by Excel has one); never run
    rates = book.create_sheet("Rates")
    rates.append(["Product", "AER"])
    rates.append(["Easy Saver", 0.031])
    book.properties.title = "Price list"
    book.save(path)
    return path


def test_xlsx_sheets_and_rows_are_sections(tmp_path: Path) -> None:
    doc = only(make_xlsx(tmp_path / "prices.xlsx"))
    assert doc.title == "Price list" and doc.metadata["sheets"] == 2
    assert [b.section for b in doc.blocks] == ["Fees › rows 2–4", "Rates › row 2"]
    assert doc.blocks[0].text.splitlines()[0] == "Service: Service 0; Fee (EUR): 5; Notes: waived for students"
    assert doc.blocks[0].text.splitlines()[1] == "Service: Service 1; Fee (EUR): 6" and "SUM" not in doc.text
    assert doc.blocks[1].text == "Product: Easy Saver; AER: 0.031"


def test_a_long_sheet_is_split_into_row_ranges(tmp_path: Path) -> None:
    doc = only(make_xlsx(tmp_path / "long.xlsx", rows=200))
    sections = [b.section for b in doc.blocks if b.section.startswith("Fees")]
    assert len(sections) > 3 and sections[0].startswith("Fees › rows 2–")
    assert sum(len(b.text.splitlines()) for b in doc.blocks if b.section.startswith("Fees")) == 200


# -- email --------------------------------------------------------------------------
def make_eml(path: Path, tmp_path: Path) -> Path:
    message = EmailMessage()
    message["From"] = "Ana Ruiz <ana@bank.example>"
    message["To"] = "branch-team@bank.example, ops@bank.example"
    message["Subject"] = "New overdraft limits from March"
    message["Date"] = "Mon, 02 Feb 2026 09:30:00 +0100"
    message["Message-ID"] = "<limits-2026@bank.example>"
    message.set_content("Hello team,\n\nFrom March the arranged overdraft limit rises to 2,500 EUR.\n\nAna")
    message.add_alternative("<p>Hello team,</p><p>From March the arranged overdraft limit rises to 2,500 EUR.</p>",
                            subtype="html")
    message.add_attachment(make_xlsx(tmp_path / "limits.xlsx").read_bytes(), maintype="application",
                           subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet", filename="limits.xlsx")
    message.add_attachment(b"Student accounts keep the 500 EUR limit.\n", maintype="text", subtype="plain",
                           filename="../../etc/students.txt")
    message.add_attachment(b"\x00\x01 not a pdf", maintype="application", subtype="pdf", filename="broken.pdf")
    path.write_bytes(bytes(message))
    return path


def test_eml_headers_body_and_attachments(tmp_path: Path) -> None:
    results = load(make_eml(tmp_path / "limits.eml", tmp_path))
    mail, sheet, note, broken = results
    assert isinstance(mail, Document) and mail.title == "New overdraft limits from March"
    assert mail.text.startswith("Hello team,") and "2,500 EUR" in mail.text and "<p>" not in mail.text
    assert mail.metadata["from"] == "Ana Ruiz <ana@bank.example>"
    assert mail.metadata["to"] == "branch-team@bank.example, ops@bank.example"
    assert mail.metadata["date"] == "2026-02-02T09:30:00+01:00" and mail.metadata["attachments"] == 2
    assert isinstance(sheet, Document) and sheet.source == "limits.eml#limits.xlsx"
    assert sheet.metadata["attachment_of"] == "limits.eml" and sheet.blocks[0].section == "Fees › rows 2–4"
    assert isinstance(note, Document) and note.source == "limits.eml#students.txt"  # no path in a source
    assert isinstance(broken, LoaderError) and broken.path == "limits.eml#broken.pdf"


def test_emails_attached_too_deep_are_refused(tmp_path: Path) -> None:
    data = b"Subject: innermost\n\nHello.\n"
    for depth in range(5):
        outer = EmailMessage()
        outer["Subject"] = f"level {depth}"
        outer.set_content("See attached.")
        outer.add_attachment(data, maintype="application", subtype="octet-stream", filename="inner.eml")
        data = bytes(outer)
    (tmp_path / "deep.eml").write_bytes(data)
    errors = [r for r in load(tmp_path / "deep.eml") if isinstance(r, LoaderError)]
    assert len(errors) == 1 and "attached more than 3 deep" in errors[0].reason


# -- EPUB and ODT (built as their specs lay them out) ------------------------------------
def make_epub(path: Path, chapter_head: str = "<!DOCTYPE html>") -> Path:
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", (
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
            '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>"))
        book.writestr("OEBPS/content.opf", (
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Robotics 101</dc:title></metadata>'
            '<manifest><item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>'
            '<item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="c2"/><itemref idref="c1"/></spine></package>'))
        for name, title, text in (("ch1", "Sensors", "Lidar measures distance with light."),
                                  ("ch2", "Introduction to ROS 2", "ROS 2 nodes talk over DDS.")):
            book.writestr(f"OEBPS/text/{name}.xhtml", (
                f'<?xml version="1.0"?>{chapter_head}<html xmlns="http://www.w3.org/1999/xhtml"><head>'
                f"<title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"))
    return path


def test_epub_chapters_in_spine_order(tmp_path: Path) -> None:
    doc = only(make_epub(tmp_path / "robotics.epub"))
    assert doc.title == "Robotics 101" and doc.metadata["chapters"] == 2
    assert [b.section for b in doc.blocks] == ["Introduction to ROS 2", "Sensors"]
    assert "DDS" in doc.blocks[0].text


def make_odt(path: Path) -> Path:
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    content = (
        '<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        f' xmlns:text="{text}"><office:body><office:text>'
        '<text:h text:outline-level="1">Enrolment</text:h><text:p>Term starts on 1 September.</text:p>'
        '<text:h text:outline-level="2">Fees</text:h><text:p>Tuition is 900 EUR a year.</text:p>'
        "<text:list><text:list-item><text:p>Books are included.</text:p></text:list-item></text:list>"
        "</office:text></office:body></office:document-content>")
    with zipfile.ZipFile(path, "w") as odt:
        odt.writestr("mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED)
        odt.writestr("content.xml", content)
    return path


def test_odt_headings_are_sections(tmp_path: Path) -> None:
    doc = only(make_odt(tmp_path / "school.odt"))
    assert doc.title == "Enrolment"
    assert [(b.section, b.text) for b in doc.blocks] == [
        ("Enrolment", "Term starts on 1 September."),
        ("Enrolment > Fees", "Tuition is 900 EUR a year.\nBooks are included.")]


def test_rtf_text_without_control_words(tmp_path: Path) -> None:
    path = tmp_path / "letter.rtf"
    path.write_bytes(rb"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard Savings {\b rates} are 3\'25."
                     rb"\par Caf\'e9 opening hours: 9\u8211?17.\par}")
    doc = only(path)
    assert doc.text == "Savings rates are 3%.\nCafé opening hours: 9–17."
    (tmp_path / "fake.rtf").write_bytes(b"plain text")
    with pytest.raises(LoaderError, match="not an RTF file"):
        load(tmp_path / "fake.rtf")
    (tmp_path / "deep.rtf").write_bytes(b"{\\rtf1 " + b"{" * 100_000 + b"deep" + b"}" * 100_000 + b"}")
    assert only(tmp_path / "deep.rtf").text == "deep"


# -- docx title ---------------------------------------------------------------------
def test_docx_title_is_the_first_heading(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Travel policy", level=1)
    document.add_paragraph("Book economy class for trips under six hours.")
    document.add_heading("Corporate card", level=1)
    document.add_paragraph("Use the corporate card for hotels.")
    document.save(tmp_path / "travel-policy.docx")
    assert only(tmp_path / "travel-policy.docx").title == "Travel policy"


# -- hostile input ------------------------------------------------------------------
def _zip(path: Path, parts: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("name", ["deck.pptx", "sheet.xlsx", "book.epub", "text.odt"])
def test_zip_formats_refuse_bad_input_by_name(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"plain text pretending")
    with pytest.raises(LoaderError, match="no ZIP signature"):
        load(tmp_path / name)
    bomb = _zip(tmp_path / f"bomb-{name}", {"content.xml": b"\0" * (300 << 20)})
    with pytest.raises(LoaderError, match="zip bomb"):
        load(bomb)
    laughs = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><x>&a;</x>'
    entity = _zip(tmp_path / f"laughs-{name}", {"content.xml": laughs, "xl/workbook.xml": laughs,
                                                "ppt/presentation.xml": laughs, "META-INF/container.xml": laughs})
    with pytest.raises(LoaderError, match="entity expansion"):
        load(entity)
    empty = _zip(tmp_path / f"empty-{name}", {"other.txt": b"nothing here"})
    with pytest.raises(LoaderError) as caught:
        load(empty)
    assert caught.value.path == f"empty-{name}"


def test_new_formats_run_in_the_sandbox_and_ingest(engine: Engine, tmp_path: Path) -> None:
    files = tmp_path / "kb"
    files.mkdir()
    make_pptx(files / "products.pptx")
    make_xlsx(files / "prices.xlsx")
    make_eml(files / "limits.eml", tmp_path)
    make_epub(files / "robotics.epub")
    make_odt(files / "school.odt")
    sandbox = ParserSandbox(LimitSettings())
    try:
        assert isinstance(sandbox.parse(files / "products.pptx", "products.pptx")[0], Document)
    finally:
        sandbox.close()
    summary = engine.ingest([files], Scope("school", ("kb",)))
    assert summary.added == 7  # the mail is three documents: its text and two readable attachments
    assert [f["path"] for f in summary.failed] == ["kb/limits.eml#broken.pdf"]
    hit = engine.search("wire transfer fee", Scope("school", ("kb",)), mode="keyword").hits[0]
    assert (hit.source, hit.page, hit.section) == ("kb/products.pptx", 2, "Fees")

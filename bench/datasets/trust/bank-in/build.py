#!/usr/bin/env python3
"""Rebuild the bank-in corpus (docs/*.docx, docs/*.pdf) from src-text/*.md.

Usage:  /work/blind-venv-bankin/bin/python build.py
Needs:  fpdf2, python-docx (pip install fpdf2 python-docx) and the DejaVu Sans
        TrueType fonts (Debian/Ubuntu package fonts-dejavu-core), which carry
        the rupee sign (U+20B9) and superscript footnote digits.

The .md files use a small Markdown subset:
  front matter (title:, format: docx|pdf) between '---' lines;
  '# ' document title, '## ' section heading, a line that is only **bold**
  is a sub-heading; '- ' bullets; '|' pipe tables (second row is the
  separator); a line wholly in *single stars* is an italic note; '---' starts
  the footnote area; **bold** inside a line is kept as bold.
"""
import datetime
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src-text")
OUT = os.path.join(HERE, "docs")
BANK = "Godavari Urban Co-operative Bank Ltd."
FIXED_DATE = datetime.datetime(2024, 4, 1, 10, 0, 0, tzinfo=datetime.timezone.utc)

FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
             "/usr/local/share/fonts", os.path.join(HERE, "fonts")]


def find_font(name):
    for d in FONT_DIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    sys.exit(f"font {name} not found; install fonts-dejavu-core or put it in {HERE}/fonts")


# --------------------------------------------------------------------------
# parsing
# --------------------------------------------------------------------------
def parse(path):
    text = open(path, encoding="utf-8").read()
    meta = {}
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    if m:
        for line in m.group(1).splitlines():
            k, _, v = line.partition(":")
            meta[k.strip()] = v.strip()
        text = text[m.end():]
    blocks = []          # (kind, payload, in_footnotes)
    foot = False
    lines = text.splitlines()
    i = 0
    para = []

    def flush():
        if para:
            blocks.append(("p", " ".join(para), foot))
            para.clear()

    while i < len(lines):
        ln = lines[i].rstrip()
        if not ln.strip():
            flush()
        elif ln.strip() == "---":
            flush()
            foot = True
        elif ln.startswith("## "):
            flush()
            blocks.append(("h2", ln[3:].strip(), foot))
        elif ln.startswith("# "):
            flush()
            blocks.append(("h1", ln[2:].strip(), foot))
        elif ln.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-{2,}:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            blocks.append(("table", rows, foot))
            continue
        elif ln.startswith("- "):
            flush()
            blocks.append(("li", ln[2:].strip(), foot))
        elif re.fullmatch(r"\*\*[^*]+\*\*", ln.strip()):
            flush()
            blocks.append(("h3", ln.strip()[2:-2], foot))
        elif re.fullmatch(r"\*[^*].*[^*]\*", ln.strip()):
            flush()
            blocks.append(("em", ln.strip()[1:-1], foot))
        else:
            para.append(ln.strip())
        i += 1
    flush()
    return meta, blocks


def runs(text):
    """Split a line into (text, bold) runs on **...**."""
    out = []
    for j, part in enumerate(re.split(r"\*\*", text)):
        if part:
            out.append((part, j % 2 == 1))
    return out


# --------------------------------------------------------------------------
# DOCX
# --------------------------------------------------------------------------
def build_docx(meta, blocks, dest):
    from docx import Document
    from docx.shared import Pt
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    doc = Document()
    st = doc.styles["Normal"]
    st.font.name = "Calibri"
    st.font.size = Pt(11)
    cp = doc.core_properties
    cp.title = meta.get("title", "")
    cp.author = BANK
    cp.created = FIXED_DATE.replace(tzinfo=None)
    cp.modified = FIXED_DATE.replace(tzinfo=None)
    cp.last_modified_by = BANK
    cp.revision = 1

    for kind, payload, foot in blocks:
        if kind == "h1":
            doc.add_heading(payload, level=0)
        elif kind == "h2":
            doc.add_heading(payload, level=1)
        elif kind == "h3":
            doc.add_heading(payload, level=2)
        elif kind == "em":
            p = doc.add_paragraph()
            r = p.add_run(payload)
            r.italic = True
        elif kind == "li":
            p = doc.add_paragraph(style="List Bullet")
            for t, b in runs(payload):
                p.add_run(t).bold = b
        elif kind == "p":
            p = doc.add_paragraph()
            for t, b in runs(payload):
                r = p.add_run(t)
                r.bold = b
                if foot:
                    r.font.size = Pt(8.5)
        elif kind == "table":
            rows = payload
            ncol = len(rows[0])
            t = doc.add_table(rows=len(rows), cols=ncol)
            t.style = "Table Grid"
            for ri, row in enumerate(rows):
                for ci in range(ncol):
                    cell = t.cell(ri, ci)
                    cell.text = ""
                    par = cell.paragraphs[0]
                    for txt, b in runs(row[ci] if ci < len(row) else ""):
                        r = par.add_run(txt)
                        r.bold = b or ri == 0
                        r.font.size = Pt(10)
            doc.add_paragraph()
    doc.save(dest)


# --------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------
def build_pdf(meta, blocks, dest):
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    class Leaflet(FPDF):
        def header(self):
            self.set_font("DejaVu", "", 8)
            self.set_text_color(110, 110, 110)
            self.cell(0, 5, BANK + "  |  " + meta.get("title", ""), align="L")
            self.ln(8)
            self.set_text_color(0, 0, 0)

        def footer(self):
            self.set_y(-13)
            self.set_font("DejaVu", "", 8)
            self.set_text_color(110, 110, 110)
            self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="C")
            self.set_text_color(0, 0, 0)

    pdf = Leaflet(format="A4")
    pdf.set_margins(20, 15, 20)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_font("DejaVu", "", find_font("DejaVuSans.ttf"))
    pdf.add_font("DejaVu", "B", find_font("DejaVuSans-Bold.ttf"))
    pdf.add_font("DejaVu", "I", find_font("DejaVuSans-Oblique.ttf"))
    pdf.add_font("DejaVu", "BI", find_font("DejaVuSans-BoldOblique.ttf"))
    pdf.set_title(meta.get("title", ""))
    pdf.set_author(BANK)
    pdf.set_creator("build.py")
    pdf.set_creation_date(FIXED_DATE)
    pdf.alias_nb_pages()
    pdf.add_page()
    W = pdf.epw

    def md(text):  # fpdf2 markdown uses ** for bold as well
        return text

    for kind, payload, foot in blocks:
        if kind == "h1":
            pdf.set_font("DejaVu", "B", 15)
            pdf.multi_cell(W, 8, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif kind == "h2":
            pdf.ln(2)
            pdf.set_font("DejaVu", "B", 12)
            pdf.multi_cell(W, 6.5, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif kind == "h3":
            pdf.ln(1)
            pdf.set_font("DejaVu", "B", 10)
            pdf.multi_cell(W, 5.5, payload, new_x="LMARGIN", new_y="NEXT")
        elif kind == "em":
            pdf.set_font("DejaVu", "I", 9)
            pdf.multi_cell(W, 5, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "li":
            pdf.set_font("DejaVu", "", 10)
            pdf.set_x(pdf.l_margin + 3)
            pdf.cell(5, 5.2, "\u2022")
            pdf.multi_cell(W - 8, 5.2, md(payload), markdown=True,
                           new_x="LMARGIN", new_y="NEXT")
            pdf.ln(0.8)
        elif kind == "p":
            if foot:
                pdf.set_font("DejaVu", "", 8)
                pdf.multi_cell(W, 4.2, md(payload), markdown=True,
                               new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            else:
                pdf.set_font("DejaVu", "", 10)
                pdf.multi_cell(W, 5.2, md(payload), markdown=True,
                               new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
        elif kind == "table":
            rows = payload
            ncol = len(rows[0])
            lens = [max(len(r[c]) if c < len(r) else 0 for r in rows) for c in range(ncol)]
            lens = [max(8, min(l, 45)) for l in lens]
            pdf.set_font("DejaVu", "", 9)
            pdf.ln(1)
            with pdf.table(col_widths=tuple(lens), width=W, line_height=5,
                           headings_style=FontFace(emphasis="BOLD", fill_color=(225, 232, 240)),
                           markdown=True, padding=1.2, text_align="LEFT") as t:
                for r in rows:
                    row = t.row()
                    for c in range(ncol):
                        row.cell(r[c] if c < len(r) else "")
            pdf.ln(3)
    pdf.output(dest)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in sorted(os.listdir(SRC)):
        if not name.endswith(".md"):
            continue
        meta, blocks = parse(os.path.join(SRC, name))
        fmt = meta.get("format", "pdf")
        stem = name[:-3]
        dest = os.path.join(OUT, f"{stem}.{fmt}")
        for old in (f"{stem}.pdf", f"{stem}.docx"):
            if os.path.exists(os.path.join(OUT, old)) and old != os.path.basename(dest):
                os.remove(os.path.join(OUT, old))
        (build_docx if fmt == "docx" else build_pdf)(meta, blocks, dest)
        print("wrote", os.path.relpath(dest, HERE))


if __name__ == "__main__":
    main()

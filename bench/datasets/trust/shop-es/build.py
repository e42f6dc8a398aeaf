#!/usr/bin/env python3
"""Rebuild docs/*.pdf from src-text/*.md.

Usage:  /work/blind-venv-shopes/bin/python build.py
Needs fpdf2 (pip install fpdf2) and the DejaVu TTF fonts (fonts-dejavu-core),
normally in /usr/share/fonts/truetype/dejavu/.

Normal documents are rendered from a tiny Markdown subset (# title, ## heading,
paragraphs that wrap naturally, "- " bullets, **bold**, pipe tables).
tarifas_taller_escaneado.md is rendered line by line, keeping its hard line
breaks, to imitate OCR output of a scanned price list.
"""
import datetime
import os
import re
import sys

from fpdf import FPDF
from fpdf.fonts import FontFace

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src-text")
OUT = os.path.join(HERE, "docs")
FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FIXED_DATE = datetime.datetime(2024, 3, 1, 9, 0, 0, tzinfo=datetime.timezone.utc)

NORMAL_DOCS = [
    "envios", "devoluciones", "garantia", "pagos",
    "club", "tiendas_horarios", "alquiler",
]
SCAN_DOCS = ["tarifas_taller_escaneado"]


class Doc(FPDF):
    footer_label = "Rodadas Bike & Outdoor, S.L."

    def footer(self):
        self.set_y(-14)
        self.set_font("DejaVu", "", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, f"{self.footer_label} · Página {self.page_no()}", align="C")
        self.set_text_color(0, 0, 0)


def new_pdf(title):
    pdf = Doc(format="A4")
    pdf.set_margins(22, 20, 22)
    pdf.set_auto_page_break(True, margin=20)
    for style, fname in [("", "DejaVuSans.ttf"), ("B", "DejaVuSans-Bold.ttf"),
                         ("I", "DejaVuSans-Oblique.ttf"), ("BI", "DejaVuSans-BoldOblique.ttf")]:
        pdf.add_font("DejaVu", style, os.path.join(FONT_DIR, fname))
    pdf.add_font("DejaVuSerif", "", os.path.join(FONT_DIR, "DejaVuSerif.ttf"))
    pdf.set_title(title)
    pdf.set_author("Rodadas Bike & Outdoor, S.L.")
    pdf.set_creation_date(FIXED_DATE)
    pdf.add_page()
    return pdf


def render_table(pdf, rows):
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    cells = [r for r in cells if not all(re.fullmatch(r":?-{2,}:?", c) for c in r)]
    ncol = len(cells[0])
    pdf.set_font("DejaVu", "", 9.5)
    first_w = 2.0 if ncol <= 3 else 1.6
    widths = [first_w] + [1] * (ncol - 1)
    with pdf.table(col_widths=widths, line_height=5.6, text_align="LEFT",
                   headings_style=FontFace(emphasis="BOLD", fill_color=(225, 232, 240)),
                   padding=1.6) as table:
        for r in cells:
            row = table.row()
            for c in r:
                row.cell(c)
    pdf.ln(3)


def render_markdown(name):
    text = open(os.path.join(SRC, name + ".md"), encoding="utf-8").read()
    lines = text.split("\n")
    title = lines[0].lstrip("# ").strip()
    pdf = new_pdf(title)
    i = 0
    para = []

    def flush():
        if para:
            pdf.set_font("DejaVu", "", 10.5)
            pdf.multi_cell(0, 5.6, " ".join(para), markdown=True, align="J")
            pdf.ln(2.5)
            para.clear()

    while i < len(lines):
        line = lines[i].rstrip()
        if line.startswith("# "):
            flush()
            pdf.set_font("DejaVu", "B", 17)
            pdf.multi_cell(0, 8, line[2:].strip())
            pdf.ln(1)
        elif line.startswith("## "):
            flush()
            pdf.ln(1.5)
            pdf.set_font("DejaVu", "B", 12.5)
            pdf.multi_cell(0, 6.5, line[3:].strip())
            pdf.ln(1)
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            render_table(pdf, rows)
            continue
        elif line.startswith("- "):
            flush()
            pdf.set_font("DejaVu", "", 10.5)
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(0, 5.6, "•  " + line[2:].strip(), markdown=True)
            pdf.ln(1)
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    return pdf


def render_scan(name):
    text = open(os.path.join(SRC, name + ".md"), encoding="utf-8").read()
    lines = text.rstrip("\n").split("\n")
    pdf = new_pdf("Tarifas del taller 2024 (copia escaneada)")
    pdf.footer_label = "Tarifas taller"
    pdf.set_font("DejaVuSerif", "", 11)
    for line in lines:
        if not line.strip():
            pdf.ln(4)
            continue
        # each OCR line is its own cell: no re-wrapping, hard breaks are kept
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return pdf


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in NORMAL_DOCS:
        pdf = render_markdown(name)
        pdf.output(os.path.join(OUT, name + ".pdf"))
        print(f"docs/{name}.pdf  pages={pdf.page_no()}")
    for name in SCAN_DOCS:
        pdf = render_scan(name)
        pdf.output(os.path.join(OUT, name + ".pdf"))
        print(f"docs/{name}.pdf  pages={pdf.page_no()}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cross-check: recompute a sample of expected answers by reading the written statement files
(not build.py's ledger) and compare them with questions.jsonl. Run after build.py."""
import csv
import json
import re
from decimal import Decimal as D
from pathlib import Path

HERE = Path(__file__).resolve().parent
S = HERE / "statements"
Q = {q["question"]: q for q in map(json.loads, (HERE / "questions.jsonl").read_text(encoding="utf-8").splitlines())}


def exp(question):
    e = Q[question]["expected"]
    return e.get("value", e.get("values"))


def dmy(s):
    d, m, y = s.split("/")
    return (int(y), int(m), int(d))


# ---- Monzo
with open(S / "monzo_current_account.csv", encoding="utf-8", newline="") as f:
    rows = list(csv.DictReader(f))
assert list(rows[0].keys()) == ["Transaction ID", "Date", "Time", "Type", "Name", "Emoji", "Category", "Amount",
                                "Currency", "Local amount", "Local currency", "Notes and #tags", "Address",
                                "Receipt", "Description", "Category split", "Money Out", "Money In"]
for r in rows:
    a = D(r["Amount"])
    assert (r["Money Out"] == r["Amount"]) if a < 0 else (r["Money In"] == r["Amount"])
monzo_open = D(re.search(r"\*\*£([\d,]+\.\d\d)\*\*", (S / "accounts.md").read_text()).group(1).replace(",", ""))
main_bal = monzo_open + sum(D(r["Amount"]) for r in rows)
assert str(main_bal) == exp("What's my Monzo balance?"), (main_bal, exp("What's my Monzo balance?"))
tesco = -sum(D(r["Amount"]) for r in rows if r["Name"] == "Tesco")
assert str(tesco) == exp("How much have I spent at Tesco since June?")
mun = [r for r in rows if "MUENCHEN" in r["Description"]]
assert str(-sum(D(r["Amount"]) for r in mun)) == exp("How much did I spend in Munich?")
assert str(-sum(D(r["Local amount"]) for r in mun)) == exp("how many euros did i spend in munich")
aug_groc = -sum(D(r["Amount"]) for r in rows if r["Category"] == "Groceries" and dmy(r["Date"])[1] == 8)
assert str(aug_groc) == exp("How much did I spend on food shopping in August?")
take = -sum(D(r["Amount"]) for r in rows if r["Name"] in ("Deliveroo", "Just Eat", "Uber Eats") and dmy(r["Date"])[1] == 8)
assert str(take) == exp("how much on takeaways in august")
pots = -sum(D(r["Amount"]) for r in rows if r["Type"] == "Pot transfer")
assert str(pots) == exp("How much is in my pots?")

# ---- joint (newest first)
with open(S / "calder_joint_account.csv", encoding="utf-8", newline="") as f:
    jrows = list(csv.DictReader(f))
chrono = list(reversed(jrows))
opening = D(chrono[0]["Balance"]) - D(chrono[0]["Amount"])
bal = opening
for r in chrono:
    bal += D(r["Amount"])
    assert bal == D(r["Balance"]), r
assert str(D(jrows[0]["Balance"])) == exp("how much is in the joint account")
low = min(D(r["Balance"]) for r in jrows)
assert str(low) == exp("What's the lowest our joint balance got, and what interest would we pay if we went overdrawn?")
fx = -sum(D(r["Amount"]) for r in jrows if r["Description"] == "NON-STERLING TRANSACTION FEE")
assert str(fx) == exp("How much did we pay in non-sterling transaction fees in Munich, and what's the rate?")
sep_tesco = -sum(D(r["Amount"]) for r in jrows if r["Description"].startswith("TESCO") and dmy(r["Date"])[1] == 9)
assert str(sep_tesco) == exp("How much did we spend at Tesco in September?")
b930 = [r for r in jrows if dmy(r["Date"]) <= (2026, 9, 30)][0]["Balance"]
assert b930 == exp("What was the joint balance on 30 September?")

# ---- OFX
ofx = (S / "calder_easy_saver.ofx").read_text(encoding="ascii")
amts = [D(x) for x in re.findall(r"<TRNAMT>([-\d.]+)", ofx)]
types = re.findall(r"<TRNTYPE>(\w+)", ofx)
ledger = D(re.search(r"<LEDGERBAL>\s*<BALAMT>([-\d.]+)", ofx).group(1))
assert str(ledger) == exp("What's my savings balance?")
assert str(ledger - sum(amts)) == exp("What was in the savings account at the start of June?")
assert str(sum(a for a, t in zip(amts, types) if t == "INT")) == exp("How much interest has the saver paid me?")
assert str(sum(a for a, t in zip(amts, types) if t == "CREDIT")) == exp("How much have I paid into the savings account?")

total = main_bal + pots + D(jrows[0]["Balance"]) + ledger
assert str(total) == exp("how much have i got altogether across all three accounts")
print("verify.py: all cross-checks passed")

#!/usr/bin/env python3
"""Build the "money questions" evaluation set.

Everything in this folder is produced by this script from a fixed seed:

  statements/monzo_current_account.csv   Monzo export (Alex's personal current account)
  statements/calder_joint_account.csv    Calder Bank joint account export (Alex & Sam)
  statements/calder_easy_saver.ofx       Calder Bank Easy Access Saver, OFX 1.02 (SGML)
  statements/accounts.md                 the user's own description of the three files
  statements/fees.md                     Calder Bank fee page
  questions.jsonl                        the questions with expected answers
  merchants.jsonl                        labelled raw bank descriptions
  README.md                              description of the set

Every expected figure is computed here with decimal.Decimal from the same
in-memory ledger that the statement files are written from.  Nothing is typed
in by hand except the question wording and the definitions in the notes.

Run:  python3 build.py     (standard library only, Python 3.9+)
"""
from __future__ import annotations

import calendar
import csv
import datetime as dt
import io
import json
import random
import string
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

SEED = 20260601          # data generation
SPLIT_SEED = 4172        # dev/test split
HERE = Path(__file__).resolve().parent
STMT = HERE / "statements"

D = Decimal
CENT = D("0.01")


def q2(x) -> Decimal:
    return D(x).quantize(CENT, rounding=ROUND_HALF_UP)


def money(x) -> str:
    return str(q2(x))


rng = random.Random(SEED)

START = dt.date(2026, 6, 1)
END = dt.date(2026, 10, 31)
MONTHS = [6, 7, 8, 9, 10]
MONTH_NAME = {m: calendar.month_name[m] for m in range(1, 13)}
BANK_HOLIDAYS = {dt.date(2026, 8, 31)}          # Summer bank holiday (England)

MUNICH_FROM = dt.date(2026, 9, 14)
MUNICH_TO = dt.date(2026, 9, 19)


def is_working(d: dt.date) -> bool:
    return d.weekday() < 5 and d not in BANK_HOLIDAYS


def next_working(d: dt.date) -> dt.date:
    while not is_working(d):
        d += dt.timedelta(days=1)
    return d


def prev_working(d: dt.date) -> dt.date:
    while not is_working(d):
        d -= dt.timedelta(days=1)
    return d


def month_days(m: int):
    n = calendar.monthrange(2026, m)[1]
    return [dt.date(2026, m, i) for i in range(1, n + 1)]


def in_munich(d: dt.date) -> bool:
    return MUNICH_FROM <= d <= MUNICH_TO


def rand_amount(lo, hi) -> Decimal:
    lo_c, hi_c = int(D(lo) * 100), int(D(hi) * 100)
    return q2(D(rng.randint(lo_c, hi_c)) / 100)


def rand_time(h0=7, h1=22) -> str:
    return f"{rng.randint(h0, h1):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# --------------------------------------------------------------------------- ledger
@dataclass
class Txn:
    acct: str                  # monzo | joint | savings
    date: dt.date              # date shown in the statement's Date column
    amount: Decimal            # signed, GBP (negative = money out)
    merchant: str              # canonical merchant / counterparty (our label)
    cat: str                   # our category label (Monzo vocabulary, snake_case)
    tags: set = field(default_factory=set)
    city: str = "London"
    tdate: dt.date | None = None     # date the card was used (joint "ON dd MMM")
    # Monzo fields
    time: str = ""
    mtype: str = ""
    name: str = ""
    emoji: str = ""
    local_amount: Decimal | None = None
    local_ccy: str = "GBP"
    notes: str = ""
    address: str = ""
    desc: str = ""
    # OFX fields
    trntype: str = ""
    ofx_name: str = ""
    memo: str = ""
    fx_rate: Decimal | None = None

    def __post_init__(self):
        if self.tdate is None:
            self.tdate = self.date
        if self.local_amount is None:
            self.local_amount = self.amount


LEDGER: list[Txn] = []


def add(t: Txn) -> Txn:
    t.seq = len(LEDGER)
    LEDGER.append(t)
    return t


MONZO_CAT_DISPLAY = {
    "groceries": "Groceries", "eating_out": "Eating out", "transport": "Transport",
    "bills": "Bills", "entertainment": "Entertainment", "shopping": "Shopping",
    "personal_care": "Personal care", "holidays": "Holidays", "cash": "Cash",
    "general": "General", "income": "Income", "transfers": "Transfers",
    "savings": "Savings", "charity": "Charity", "family": "Family", "gifts": "Gifts",
}


def padded(name: str, city: str, cc: str) -> str:
    """Card descriptor as Monzo shows it in the Description column."""
    return f"{name:<23}{city:<14}{cc}"


# ---- Monzo merchants: key -> (Name, Emoji, category, descriptor name, address, tags)
MZ = {
    "tesco": ("Tesco", "🍏", "groceries", "TESCO STORES 6542", "214 Brixton Hill", {"supermarket"}),
    "tesco_exp": ("Tesco", "🍏", "groceries", "TESCO EXPRESS 3287", "14 Acre Lane", {"supermarket"}),
    "sainsburys": ("Sainsbury's", "🍏", "groceries", "SAINSBURYS S/MKTS", "Brixton Water Lane", {"supermarket"}),
    "lidl": ("Lidl", "🍏", "groceries", "LIDL GB LONDON", "Brixton Road", {"supermarket"}),
    "waitrose": ("Waitrose & Partners", "🍏", "groceries", "WAITROSE 0714", "Clapham High Street", {"supermarket"}),
    "pret": ("Pret A Manger", "☕", "eating_out", "PRET A MANGER", "Brixton Road", {"coffee"}),
    "nero": ("Caffè Nero", "☕", "eating_out", "CAFFE NERO 0312", "Kennington Road", {"coffee"}),
    "monmouth": ("Monmouth Coffee Company", "☕", "eating_out", "MONMOUTH COFFEE", "2 Park Street", {"coffee"}),
    "dishoom": ("Dishoom", "🍛", "eating_out", "DISHOOM KINGS CROSS", "Granary Square", {"restaurant"}),
    "franco": ("Franco Manca", "🍕", "eating_out", "FRANCO MANCA BRIXTON", "Market Row", {"restaurant"}),
    "nandos": ("Nando's", "🍗", "eating_out", "NANDOS BRIXTON", "234 Ferndale Road", {"restaurant"}),
    "wagamama": ("wagamama", "🍜", "eating_out", "WAGAMAMA CLAPHAM", "Clapham High Street", {"restaurant"}),
    "duke": ("The Duke of Edinburgh", "🍺", "eating_out", "DUKE OF EDINBURGH", "204 Ferndale Road", {"restaurant", "pub"}),
    "deliveroo": ("Deliveroo", "🥡", "eating_out", "DELIVEROO", "", {"takeaway"}),
    "justeat": ("Just Eat", "🥡", "eating_out", "JUST EAT.CO.UK LTD", "", {"takeaway"}),
    "ubereats": ("Uber Eats", "🥡", "eating_out", "UBER *EATS", "", {"takeaway"}),
    "tfl": ("Transport for London", "🚇", "transport", "TFL TRAVEL CH", "", {"tfl"}),
    "uber": ("Uber", "🚕", "transport", "UBER *TRIP", "", {"uber"}),
    "trainline": ("Trainline", "🚆", "transport", "TRAINLINE", "", {"train"}),
    "odeon": ("Odeon", "🍿", "entertainment", "ODEON CINEMAS", "Streatham High Road", {"cinema"}),
    "vue": ("Vue", "🍿", "entertainment", "VUE ENTERTAINMENT", "Piccadilly Circus", {"cinema"}),
    "everyman": ("Everyman", "🍿", "entertainment", "EVERYMAN CINEMAS", "Canada Water", {"cinema"}),
    "netflix": ("Netflix", "📺", "entertainment", "NETFLIX.COM", "", {"subscription", "streaming"}),
    "spotify": ("Spotify", "🎵", "entertainment", "SPOTIFY", "", {"subscription", "streaming"}),
    "disney": ("Disney+", "📺", "entertainment", "DISNEY PLUS", "", {"subscription", "streaming"}),
    "apple": ("Apple", "☁️", "bills", "APPLE.COM/BILL", "", {"subscription", "icloud"}),
    "boots": ("Boots", "💊", "personal_care", "BOOTS 1123 BRIXTON", "Brixton Road", {"pharmacy"}),
    "ruffians": ("Ruffians", "💈", "personal_care", "RUFFIANS BARBERS", "Clapham Common", {"barber"}),
    "amazon": ("Amazon", "📦", "shopping", "AMAZON.CO.UK*", "", set()),
    "asos": ("ASOS", "👕", "shopping", "ASOS.COM", "", set()),
    "uniqlo": ("Uniqlo", "👕", "shopping", "UNIQLO REGENT ST", "311 Oxford Street", set()),
    "waterstones": ("Waterstones", "📚", "shopping", "WATERSTONES BRIXTON", "Brixton Road", set()),
    "johnlewis": ("John Lewis", "🛍️", "shopping", "JOHN LEWIS OXFORD ST", "300 Oxford Street", set()),
    "moonpig": ("Moonpig", "🎁", "gifts", "MOONPIG.COM", "", set()),
    "etsy": ("Etsy", "🎁", "gifts", "ETSY.COM", "", set()),
    "postoffice": ("Post Office", "✉️", "general", "POST OFFICE COUNTER", "Brixton Road", set()),
    "ba": ("British Airways", "✈️", "holidays", "BRITISH A 1252456613", "", {"flight"}),
    "atm_uk": ("Cash machine", "💵", "cash", "LINK ATM BRIXTON RD", "Brixton Road", {"atm"}),
    "justgiving": ("JustGiving", "❤️", "charity", "JUSTGIVING", "", set()),
}

MZ_ONLINE_CITY = {
    "deliveroo": ("LONDON", "GBR"), "justeat": ("LONDON", "GBR"), "ubereats": ("help.uber.com", "NLD"),
    "uber": ("help.uber.com", "NLD"), "trainline": ("LONDON", "GBR"), "netflix": ("AMSTERDAM", "NLD"),
    "spotify": ("STOCKHOLM", "SWE"), "disney": ("LONDON", "GBR"), "apple": ("HOLLYHILL", "IRL"),
    "amazon": ("AMAZON.CO.UK", "GBR"), "asos": ("LONDON", "GBR"), "moonpig": ("LONDON", "GBR"),
    "etsy": ("DUBLIN", "IRL"), "ba": ("LONDON", "GBR"), "justgiving": ("LONDON", "GBR"),
    "tfl": ("TFL.GOV.UK/CP", "GBR"),
}

MERCHANT_CANON = {
    "tesco": "Tesco", "tesco_exp": "Tesco", "sainsburys": "Sainsbury's", "lidl": "Lidl",
    "waitrose": "Waitrose", "pret": "Pret A Manger", "nero": "Caffè Nero", "monmouth": "Monmouth Coffee",
    "dishoom": "Dishoom", "franco": "Franco Manca", "nandos": "Nando's", "wagamama": "Wagamama",
    "duke": "The Duke of Edinburgh", "deliveroo": "Deliveroo", "justeat": "Just Eat", "ubereats": "Uber Eats",
    "tfl": "TfL", "uber": "Uber", "trainline": "Trainline", "odeon": "Odeon", "vue": "Vue",
    "everyman": "Everyman", "netflix": "Netflix", "spotify": "Spotify", "disney": "Disney+",
    "apple": "Apple iCloud", "boots": "Boots", "ruffians": "Ruffians", "amazon": "Amazon", "asos": "ASOS",
    "uniqlo": "Uniqlo", "waterstones": "Waterstones", "johnlewis": "John Lewis", "moonpig": "Moonpig",
    "etsy": "Etsy", "postoffice": "Post Office", "ba": "British Airways", "atm_uk": "Cash machine",
    "justgiving": "JustGiving",
}

_amzn_chars = string.ascii_uppercase + string.digits


def monzo_card(key, d, amount, *, city="London", notes="", refund=False, time=None,
               address=None, extra_tags=()):
    name, emoji, cat, dname, addr, tags = MZ[key]
    if key in MZ_ONLINE_CITY:
        ccity, cc = MZ_ONLINE_CITY[key]
    else:
        ccity, cc = city.upper(), "GBR"
    if key == "amazon":
        dname = "AMAZON.CO.UK*" + "".join(rng.choice(_amzn_chars) for _ in range(9))
    if key == "pret" and city != "London":
        addr = "Leeds Station"
    amt = q2(amount)
    amt = amt if refund else -amt
    t = Txn("monzo", d, amt, MERCHANT_CANON[key], cat, set(tags) | set(extra_tags), city=city,
            time=time or rand_time(), mtype="Card payment", name=name, emoji=emoji,
            notes=notes, address=addr if address is None else address,
            desc=padded(dname, ccity, cc))
    if refund:
        t.tags.add("refund")
    return add(t)


# ================================================================= MONZO ledger
MONZO_OPENING = D("1884.67")      # main balance before the first June transaction (accounts.md)
JOINT_OPENING = D("4386.52")      # joint balance brought forward on 31/05/2026

SALARY = {6: D("3142.18"), 7: D("3142.18"), 8: D("3226.40"), 9: D("3226.40"), 10: D("3226.40")}
JOINT_CONTRIB = D("1600.00")
SAVER_MONTHLY = D("400.00")


def salary_day(m):
    return prev_working(dt.date(2026, m, 25))


for m in MONTHS:
    sd = salary_day(m)
    add(Txn("monzo", sd, SALARY[m], "Northwind Analytics", "income", {"salary"}, time="06:12:40",
            mtype="Bacs (Direct Credit)", name="Northwind Analytics Ltd", emoji="",
            desc=f"NORTHWIND ANALYTICS SAL {calendar.month_abbr[m].upper()}26"))
    td = next_working(sd + dt.timedelta(days=1))
    add(Txn("monzo", td, -JOINT_CONTRIB, "Joint account", "transfers", {"to_joint"}, time="08:03:11",
            mtype="Faster payment", name="MORGAN A & PATEL S", desc="JOINT"))
    add(Txn("monzo", td, -SAVER_MONTHLY, "Calder Easy Saver", "savings", {"to_saver"}, time="08:05:52",
            mtype="Faster payment", name="Alex Morgan", desc="SAVER"))
    # Direct Debits
    add(Txn("monzo", next_working(dt.date(2026, m, 1)), D("-24.99"), "PureGym", "personal_care", {"gym"},
            time="04:31:08", mtype="Direct Debit", name="PureGym", emoji="🏋️", desc="PUREGYM LTD"))
    add(Txn("monzo", next_working(dt.date(2026, m, 5)), D("-10.00"), "Cancer Research UK", "charity",
            {"donation"}, time="04:29:55", mtype="Direct Debit", name="Cancer Research UK", emoji="🎗️",
            desc="CANCER RESEARCH UK"))
    add(Txn("monzo", next_working(dt.date(2026, m, 12)), D("-24.00"), "EE", "bills", {"mobile"},
            time="04:30:17", mtype="Direct Debit", name="EE", emoji="📱", desc="EE LIMITED"))
    # subscriptions on cards
    monzo_card("netflix", dt.date(2026, m, 8), "12.99", time="03:14:22")
    monzo_card("spotify", dt.date(2026, m, 19), "11.99" if m < 9 else "12.99", time="05:02:41")
    if m <= 8:
        monzo_card("disney", dt.date(2026, m, 22), "8.99", time="02:48:09")
    monzo_card("apple", dt.date(2026, m, 14), "2.99", time="01:55:30",
               notes="iCloud 200GB" if m == 6 else "")

# pots
POTS = {"Holiday": "pot_0000AZgVq3Wk1RnB8yXh2c", "Christmas": "pot_0000Ae7LpT4sQ9mXv0dK5j"}
POT_MOVES = [  # (date, pot, amount moved INTO the pot; negative = moved back to main)
    (dt.date(2026, 6, 1), "Holiday", D("100.00")), (dt.date(2026, 6, 15), "Holiday", D("100.00")),
    (dt.date(2026, 7, 1), "Holiday", D("100.00")), (dt.date(2026, 7, 15), "Holiday", D("100.00")),
    (dt.date(2026, 8, 1), "Holiday", D("150.00")), (dt.date(2026, 8, 15), "Holiday", D("150.00")),
    (dt.date(2026, 9, 11), "Holiday", D("-600.00")),
    (dt.date(2026, 9, 26), "Christmas", D("40.00")),
    (dt.date(2026, 10, 1), "Christmas", D("50.00")), (dt.date(2026, 10, 15), "Christmas", D("50.00")),
]
for d, pot, amt in POT_MOVES:
    add(Txn("monzo", d, -amt, f"{pot} pot", "savings", {"pot", "pot_" + pot.lower()}, time="09:00:00",
            mtype="Pot transfer", name=pot, desc=POTS[pot]))

# ad-hoc transfers to / from the saver (also appear in the OFX)
SAVER_ADHOC = [(dt.date(2026, 6, 12), D("200.00")), (dt.date(2026, 7, 3), D("250.00")),
               (dt.date(2026, 7, 29), D("500.00")), (dt.date(2026, 8, 14), D("150.00")),
               (dt.date(2026, 8, 28), D("80.00")), (dt.date(2026, 9, 29), D("60.00")),
               (dt.date(2026, 10, 9), D("300.00"))]
SAVER_WITHDRAWALS = [(dt.date(2026, 9, 10), D("300.00")), (dt.date(2026, 10, 20), D("250.00"))]
for d, amt in SAVER_ADHOC:
    add(Txn("monzo", d, -amt, "Calder Easy Saver", "savings", {"to_saver"}, time=rand_time(8, 21),
            mtype="Faster payment", name="Alex Morgan", desc="SAVER"))
for d, amt in SAVER_WITHDRAWALS:
    add(Txn("monzo", d, amt, "Calder Easy Saver", "transfers", {"from_saver"}, time=rand_time(8, 21),
            mtype="Faster payment", name="ALEX MORGAN", desc="FROM SAVER"))

# other income
add(Txn("monzo", dt.date(2026, 6, 16), D("18.00"), "Vinted", "income", {"vinted"}, time="14:22:05",
        mtype="Faster payment", name="Vinted", emoji="👗", desc="VINTED PAYOUT"))
add(Txn("monzo", dt.date(2026, 8, 11), D("42.50"), "Vinted", "income", {"vinted"}, time="11:07:45",
        mtype="Faster payment", name="Vinted", emoji="👗", desc="VINTED PAYOUT"))
add(Txn("monzo", dt.date(2026, 10, 13), D("212.40"), "HMRC", "income", {"tax_refund"}, time="06:40:12",
        mtype="Bacs (Direct Credit)", name="HMRC", emoji="", desc="HMRC PAYE REFUND",
        notes="tax refund 2025/26"))
add(Txn("monzo", dt.date(2026, 7, 12), D("12.50"), "Jamie Clarke", "transfers", {"payback"}, time="20:14:39",
        mtype="Faster payment", name="Jamie Clarke", desc="CINEMA"))
# family
add(Txn("monzo", dt.date(2026, 6, 21), D("-50.00"), "Mum", "family", {"mum"}, time="10:12:44",
        mtype="Faster payment", name="Margaret Morgan", desc="FATHERS DAY MEAL", notes="my half of dinner for Dad"))
add(Txn("monzo", dt.date(2026, 10, 4), D("-75.00"), "Mum", "family", {"mum"}, time="18:31:02",
        mtype="Faster payment", name="Margaret Morgan", desc="BIRTHDAY", notes="Mum's birthday"))

# ---------------------------------------------------------------- Monzo variable spending
GROCERY_RANGE = {"tesco": ("4.10", "27.80"), "tesco_exp": ("3.20", "16.40"), "sainsburys": ("5.10", "29.90"),
                 "lidl": ("8.20", "34.60"), "waitrose": ("6.40", "31.80")}
COFFEE_RANGE = {"pret": ("3.10", "4.45"), "nero": ("3.05", "4.20"), "monmouth": ("3.50", "4.80")}
TAKEAWAY_RANGE = {"deliveroo": ("18.40", "33.90"), "justeat": ("16.20", "29.80"), "ubereats": ("15.10", "28.70")}
REST_RANGE = {"dishoom": ("38.00", "62.00"), "franco": ("18.00", "30.00"), "nandos": ("14.00", "26.00"),
              "wagamama": ("16.00", "32.00"), "duke": ("12.00", "38.00")}


def pick_days(m, n, weekdays_only=False, avoid=()):
    days = [d for d in month_days(m) if not in_munich(d) and d not in avoid
            and (not weekdays_only or d.weekday() < 5)]
    return sorted(rng.sample(days, n))


LEEDS_DAYS = {dt.date(2026, 7, 17), dt.date(2026, 7, 18), dt.date(2026, 7, 19)}

for m in MONTHS:
    # groceries: 10 a month
    for d in pick_days(m, 10, avoid=LEEDS_DAYS):
        key = rng.choices(["tesco", "tesco_exp", "sainsburys", "lidl", "waitrose"], [25, 15, 25, 20, 15])[0]
        monzo_card(key, d, rand_amount(*GROCERY_RANGE[key]), time=rand_time(8, 21))
    # coffee: 8 a month on weekdays
    for d in pick_days(m, 8, weekdays_only=True, avoid=LEEDS_DAYS):
        key = rng.choices(["pret", "nero", "monmouth"], [50, 30, 20])[0]
        monzo_card(key, d, rand_amount(*COFFEE_RANGE[key]), time=rand_time(7, 10))
    # takeaways: 3 a month, evenings
    keys = ["deliveroo", "justeat", "ubereats"]
    rng.shuffle(keys)
    for d, key in zip(pick_days(m, 3, avoid=LEEDS_DAYS), keys):
        monzo_card(key, d, rand_amount(*TAKEAWAY_RANGE[key]), time=rand_time(18, 22))
    # restaurants: 2 a month
    for d, key in zip(pick_days(m, 2, avoid=LEEDS_DAYS), rng.sample(list(REST_RANGE), 2)):
        monzo_card(key, d, rand_amount(*REST_RANGE[key]), time=rand_time(12, 21))
    # TfL: 6 a month, weekdays
    for d in pick_days(m, 6, weekdays_only=True, avoid=LEEDS_DAYS):
        monzo_card("tfl", d, rand_amount("2.80", "8.90"), time="03:40:00")

# Uber rides (London + one in Leeds)
for d, a in [(dt.date(2026, 6, 6), "14.60"), (dt.date(2026, 6, 27), "22.35"), (dt.date(2026, 7, 25), "11.90"),
             (dt.date(2026, 8, 9), "17.45"), (dt.date(2026, 8, 22), "26.80"), (dt.date(2026, 9, 14), "38.20"),
             (dt.date(2026, 10, 24), "16.05")]:
    monzo_card("uber", d, a, time="23:41:10" if d != dt.date(2026, 9, 14) else "05:12:33",
               notes="to Heathrow" if d == dt.date(2026, 9, 14) else "")
monzo_card("uber", dt.date(2026, 7, 18), "11.20", city="Leeds", time="22:54:31", extra_tags={"leeds"})

# Trainline: Leeds in July; Brighton booked then cancelled in October
monzo_card("trainline", dt.date(2026, 7, 8), "71.40", time="21:05:17",
           notes="Kings Cross to Leeds return, 17-19 July")
monzo_card("trainline", dt.date(2026, 10, 2), "23.10", time="19:44:02", notes="Brighton day trip")
monzo_card("trainline", dt.date(2026, 10, 6), "21.10", refund=True, time="10:15:48",
           notes="Brighton cancelled - refund minus £2 admin fee")

# Leeds weekend (Monzo)
monzo_card("pret", dt.date(2026, 7, 17), "3.85", city="Leeds", time="08:12:09", extra_tags={"leeds"})
add(Txn("monzo", dt.date(2026, 7, 17), D("-18.40"), "Whitelock's Ale House", "eating_out", {"restaurant", "pub", "leeds"},
        city="Leeds", time="19:48:30", mtype="Card payment", name="Whitelock's Ale House", emoji="🍺",
        address="Turk's Head Yard", desc=padded("WHITELOCKS ALE HOUSE", "LEEDS", "GBR")))
add(Txn("monzo", dt.date(2026, 7, 18), D("-9.50"), "Kirkgate Market", "eating_out", {"leeds"},
        city="Leeds", time="13:02:51", mtype="Card payment", name="Leeds Kirkgate Market", emoji="🥙",
        address="Vicar Lane", desc=padded("KIRKGATE MARKET", "LEEDS", "GBR")))
add(Txn("monzo", dt.date(2026, 7, 19), D("-24.00"), "Royal Armouries", "entertainment", {"leeds"},
        city="Leeds", time="11:20:05", mtype="Card payment", name="Royal Armouries", emoji="🏰",
        address="Armouries Drive", desc=padded("ROYAL ARMOURIES SHOP", "LEEDS", "GBR"), notes="shop - gift for Sam's dad"))

# cinema
for key, d, a in [("odeon", dt.date(2026, 6, 13), "13.49"), ("vue", dt.date(2026, 7, 10), "10.99"),
                  ("everyman", dt.date(2026, 7, 26), "21.90"), ("odeon", dt.date(2026, 8, 7), "26.98"),
                  ("vue", dt.date(2026, 8, 29), "11.49"), ("everyman", dt.date(2026, 9, 5), "19.50"),
                  ("odeon", dt.date(2026, 10, 10), "13.99"), ("odeon", dt.date(2026, 10, 30), "14.49")]:
    monzo_card(key, d, a, time=rand_time(17, 20))

# pharmacy / barber
for d, a in [(dt.date(2026, 6, 9), "7.45"), (dt.date(2026, 7, 2), "12.30"), (dt.date(2026, 8, 19), "4.99"),
             (dt.date(2026, 9, 8), "23.60"), (dt.date(2026, 10, 21), "9.15")]:
    monzo_card("boots", d, a, time=rand_time(9, 18))
for d in [dt.date(2026, 6, 20), dt.date(2026, 8, 1), dt.date(2026, 9, 12), dt.date(2026, 10, 24)]:
    monzo_card("ruffians", d, "28.00", time=rand_time(10, 16))

# shopping, refunds, gifts, misc
monzo_card("uniqlo", dt.date(2026, 6, 6), "44.90")
monzo_card("amazon", dt.date(2026, 6, 18), "17.99")
monzo_card("asos", dt.date(2026, 7, 5), "68.00")
monzo_card("asos", dt.date(2026, 7, 16), "34.00", refund=True, notes="returned the jeans")
monzo_card("waterstones", dt.date(2026, 8, 16), "21.98")
monzo_card("amazon", dt.date(2026, 8, 24), "36.49")
monzo_card("amazon", dt.date(2026, 9, 3), "36.49", refund=True)
monzo_card("amazon", dt.date(2026, 10, 7), "12.99")
monzo_card("johnlewis", dt.date(2026, 10, 17), "149.00", notes="new headphones")
monzo_card("deliveroo", dt.date(2026, 8, 27), "6.50", refund=True, notes="missing side")
monzo_card("moonpig", dt.date(2026, 7, 20), "29.48", notes="Dad's birthday card + gift")
monzo_card("etsy", dt.date(2026, 10, 1), "32.00", notes="Sam's birthday")
monzo_card("postoffice", dt.date(2026, 7, 6), "7.35")
monzo_card("justgiving", dt.date(2026, 8, 4), "25.00", notes="Priya's 10k")
monzo_card("ba", dt.date(2026, 7, 2), "186.40", notes="LHR-MUC 14 Sep, back 19 Sep", time="20:31:44")
for d, a in [(dt.date(2026, 6, 20), "40.00"), (dt.date(2026, 8, 8), "20.00"), (dt.date(2026, 10, 17), "30.00")]:
    monzo_card("atm_uk", d, a, time=rand_time(10, 19))

# ---------------------------------------------------------------- Munich (Monzo, EUR)
MUNICH_MONZO = [
    # date, time, Name, descriptor, address, EUR, rate, category, tags, notes
    (14, "11:48:20", "MVG", "MVG AUTOMAT FLUGHAFEN", "Flughafen München", "13.00", "0.8563", "holidays", {"munich_transport"}, ""),
    (14, "12:35:07", "Stadtsparkasse München", "SSKM GA MARIENPLATZ", "Marienplatz 8, 80331 München", "100.00", "0.8563", "cash", {"atm", "atm_abroad"}, ""),
    (14, "19:52:44", "Augustiner Bräustuben", "AUGUSTINER BRAEUSTUBEN", "Landsberger Str. 19, 80339 München", "46.80", "0.8563", "holidays", {"restaurant"}, "#munich"),
    (15, "09:10:31", "Rischart", "RISCHART MARIENPLATZ", "Marienplatz 18, 80331 München", "8.40", "0.8571", "holidays", {"bakery"}, ""),
    (15, "10:05:12", "Deutsches Museum", "DEUTSCHES MUSEUM", "Museumsinsel 1, 80538 München", "30.00", "0.8571", "holidays", {"museum"}, "2 tickets"),
    (15, "20:14:58", "Hofbräuhaus München", "HOFBRAEUHAUS MUENCHEN", "Platzl 9, 80331 München", "52.60", "0.8571", "holidays", {"restaurant"}, "#munich"),
    (16, "09:02:47", "MVG", "MVG AUTOMAT ODEONSPLATZ", "Odeonsplatz, 80539 München", "19.40", "0.8548", "holidays", {"munich_transport"}, "partner day ticket"),
    (16, "14:26:03", "Ludwig Beck", "LUDWIG BECK", "Marienplatz 11, 80331 München", "64.90", "0.8548", "holidays", {"shop"}, ""),
    (16, "19:40:19", "Der Pschorr", "DER PSCHORR", "Viktualienmarkt 15, 80331 München", "58.20", "0.8548", "holidays", {"restaurant"}, ""),
    (17, "10:33:54", "REWE", "REWE MARKT GMBH", "Sendlinger Str. 46, 80331 München", "23.45", "0.8559", "holidays", {"supermarket"}, ""),
    (17, "15:11:26", "Olympiaturm", "OLYMPIATURM", "Spiridon-Louis-Ring 7, 80809 München", "22.00", "0.8559", "holidays", {"sight"}, ""),
    (17, "16:45:39", "Rischart", "RISCHART MARIENPLATZ", "Marienplatz 18, 80331 München", "6.90", "0.8559", "holidays", {"bakery"}, ""),
    (18, "09:20:14", "MVG", "MVG AUTOMAT MARIENPLATZ", "Marienplatz, 80331 München", "9.20", "0.8580", "holidays", {"munich_transport"}, ""),
    (18, "20:02:08", "Paulaner am Nockherberg", "PAULANER NOCKHERBERG", "Hochstraße 77, 81541 München", "61.30", "0.8580", "holidays", {"restaurant"}, "#munich"),
    (19, "13:37:45", "Schottenhamel Festhalle", "SCHOTTENHAMEL FESTZELT", "Theresienwiese, 80336 München", "49.00", "0.8591", "holidays", {"oktoberfest"}, "Wiesn!"),
    (19, "18:03:22", "Airbräu", "AIRBRAEU FLUGHAFEN", "Terminalstraße Mitte 18, 85356 München-Flughafen", "27.40", "0.8591", "holidays", {"restaurant"}, ""),
]
for day, tm, name, dname, addr, eur, rate, cat, tags, notes in MUNICH_MONZO:
    eur_d, rate_d = D(eur), D(rate)
    gbp = q2(eur_d * rate_d)
    add(Txn("monzo", dt.date(2026, 9, day), -gbp, name, cat, set(tags) | {"munich", "eur"}, city="Munich",
            time=tm, mtype="Card payment", name=name, emoji="🇩🇪" if cat == "holidays" else "💶",
            local_amount=-eur_d, local_ccy="EUR", notes=notes, address=addr,
            desc=padded(dname, "MUENCHEN", "DEU"), fx_rate=rate_d))

# ================================================================= JOINT ledger (Calder Bank)
NON_STERLING_PCT = D("2.95")
NON_STERLING_CASH_FEE = D("1.50")
MONTHLY_FEE = D("3.00")
REPLACEMENT_CARD_FEE = D("5.00")
OVERDRAFT_EAR = "39.9%"
SAVER_AER = "3.10%"


def jt(d, amount, merchant, cat, desc, tags=(), city="London", tdate=None):
    return add(Txn("joint", d, q2(amount), merchant, cat, set(tags), city=city, desc=desc, tdate=tdate))


def card_on(d, lag_max=2):
    """Posting date for an online card payment made on d (never crosses a month end)."""
    lag = rng.randint(0, lag_max)
    p = d + dt.timedelta(days=lag)
    if p.month != d.month:
        p = d
    return p


J_GROC = {"TESCO STORES 3021 LONDON": ("Tesco", "31.20", "94.80"),
          "SAINSBURYS S/MKT 0418 LONDON": ("Sainsbury's", "28.40", "88.60"),
          "WAITROSE 0714 LONDON": ("Waitrose", "24.10", "79.30"),
          "LIDL GB LONDON": ("Lidl", "22.70", "61.50")}
J_REST = [("FRANCO MANCA BRIXTON LONDON", "Franco Manca", "21.00", "34.00"),
          ("HONEST BURGERS BRIXTON LONDON", "Honest Burgers", "26.00", "41.00"),
          ("BRIXTON VILLAGE KITCHEN LONDON", "Brixton Village Kitchen", "30.00", "55.00"),
          ("THE DOGSTAR LONDON", "The Dogstar", "18.00", "46.00")]

for m in MONTHS:
    fd = next_working(dt.date(2026, m, 1))
    jt(fd, "-1950.00", "Harbour Lettings", "bills", "STANDING ORDER HARBOUR LETTINGS REF FLAT 3 47 ACRE LN", {"rent"})
    jt(fd, "-158.00", "Lambeth Council", "bills", "DIRECT DEBIT LB LAMBETH COUNCIL TAX", {"council_tax"})
    jt(next_working(dt.date(2026, m, 7)), "-96.00" if m < 10 else "-118.00", "Octopus Energy", "bills",
       "DIRECT DEBIT OCTOPUS ENERGY", {"energy"})
    jt(next_working(dt.date(2026, m, 10)), "-41.00", "Thames Water", "bills", "DIRECT DEBIT THAMES WATER", {"water"})
    jt(next_working(dt.date(2026, m, 18)), "-45.00", "Virgin Media", "bills", "DIRECT DEBIT VIRGIN MEDIA", {"broadband"})
    jt(next_working(dt.date(2026, m, 20)), "-14.54", "TV Licensing", "bills", "DIRECT DEBIT TV LICENCE MBP", {"tv_licence"})
    jt(next_working(dt.date(2026, m, 15)), -MONTHLY_FEE, "Calder Bank", "general", "MONTHLY ACCOUNT FEE", {"bank_fee", "monthly_fee"})
    gd = dt.date(2026, m, 3)
    jt(card_on(gd, 1), "-29.99", "PureGym", "personal_care",
       f"CARD PAYMENT TO PUREGYM LTD ON {gd.day:02d} {calendar.month_abbr[m].upper()}", {"gym"}, tdate=gd)
    sd = salary_day(m)
    jt(next_working(sd + dt.timedelta(days=1)), JOINT_CONTRIB, "Alex Morgan", "transfers",
       "FASTER PAYMENT FROM A MORGAN REF JOINT", {"from_alex"})
    jt(next_working(dt.date(2026, m, 27)), JOINT_CONTRIB, "Sam Patel", "transfers",
       "FASTER PAYMENT FROM S PATEL REF HOUSEHOLD", {"from_sam"})
    # big grocery shops: 11 a month
    for d in pick_days(m, 11, avoid=LEEDS_DAYS):
        desc = rng.choices(list(J_GROC), [35, 30, 15, 20])[0]
        merch, lo, hi = J_GROC[desc]
        jt(d, -rand_amount(lo, hi), merch, "groceries", desc, {"supermarket"})
    # Ocado once a month
    od = pick_days(m, 1)[0]
    jt(card_on(od), -rand_amount("62.00", "108.00"), "Ocado", "groceries",
       f"CARD PAYMENT TO OCADO RETAIL LTD ON {od.day:02d} {calendar.month_abbr[m].upper()}", {"supermarket", "online"}, tdate=od)
    # takeaways: 2 a month
    for d, (dname, merch) in zip(pick_days(m, 2, avoid=LEEDS_DAYS),
                                 rng.sample([("JUST EAT.CO.UK LTD", "Just Eat"), ("DELIVEROO", "Deliveroo")], 2)):
        jt(card_on(d, 1), -rand_amount("19.50", "38.90"), merch, "eating_out",
           f"CARD PAYMENT TO {dname} ON {d.day:02d} {calendar.month_abbr[m].upper()}", {"takeaway"}, tdate=d)
    # restaurants: 2 a month
    for d, (desc, merch, lo, hi) in zip(pick_days(m, 2, avoid=LEEDS_DAYS), rng.sample(J_REST, 2)):
        jt(d, -rand_amount(lo, hi), merch, "eating_out", desc, {"restaurant"})

# one-offs on the joint card
jt(dt.date(2026, 6, 13), "-142.50", "IKEA", "shopping", "IKEA LTD WEMBLEY", {"household"})
jt(dt.date(2026, 7, 18), "-12.85", "Boots", "personal_care", "BOOTS UK 1234 LEEDS", {"pharmacy", "leeds"}, city="Leeds")
jt(dt.date(2026, 7, 18), "-54.30", "Bill's", "eating_out", "BILLS RESTAURANT LEEDS", {"restaurant", "leeds"}, city="Leeds")
jt(dt.date(2026, 7, 22), "-39.99", "Argos", "shopping", "ARGOS LTD LONDON", {"household"})
jt(dt.date(2026, 8, 6), -REPLACEMENT_CARD_FEE, "Calder Bank", "general", "REPLACEMENT CARD FEE", {"bank_fee", "card_fee"})
jt(dt.date(2026, 8, 22), "-40.00", "Cash withdrawal", "cash", "CASH WITHDRAWAL NOTEMACHINE ACRE LANE LONDON", {"atm"})
jt(dt.date(2026, 9, 26), "-18.49", "Robert Dyas", "shopping", "ROBERT DYAS BRIXTON LONDON", {"household"})
jt(dt.date(2026, 8, 14), "-24.40", "Everyman", "entertainment", "EVERYMAN CINEMAS LONDON", {"cinema"})
jt(dt.date(2026, 8, 25), "-8.75", "Boots", "personal_care", "BOOTS 1123 BRIXTON LONDON", {"pharmacy"})
jt(dt.date(2026, 10, 12), "-16.20", "Boots", "personal_care", "BOOTS 1123 BRIXTON LONDON", {"pharmacy"})
jt(card_on(dt.date(2026, 10, 19)), "-26.99", "Amazon", "shopping", "CARD PAYMENT TO AMAZON.CO.UK*RT4KX81Q2 ON 19 OCT",
   {"household"}, tdate=dt.date(2026, 10, 19))

# Munich on the joint card (Sam): foreign amount in the description, fees on separate lines
JOINT_MUNICH = [
    # card date, post date, descriptor, EUR, rate, merchant, category, tags
    (dt.date(2026, 9, 16), dt.date(2026, 9, 17), "SSKM MARIENPLATZ MUENCHEN DE", "150.00", "0.8548",
     "Cash withdrawal", "cash", {"atm", "atm_abroad"}),
    (dt.date(2026, 9, 17), dt.date(2026, 9, 18), "DALLMAYR DELIKATESSEN MUENCHEN DE", "38.60", "0.8559",
     "Dallmayr", "holidays", {"shop"}),
    (dt.date(2026, 9, 19), dt.date(2026, 9, 21), "HOTEL AM VIKTUALIENMARKT MUENCHEN DE", "745.00", "0.8591",
     "Hotel am Viktualienmarkt", "holidays", {"hotel"}),
]
for cd, pd, dname, eur, rate, merch, cat, tags in JOINT_MUNICH:
    gbp = q2(D(eur) * D(rate))
    prefix = "CASH WITHDRAWAL " if cat == "cash" else ""
    jt(pd, -gbp, merch, cat, f"{prefix}{dname} {eur} EUR @ {rate} ON {cd.day:02d} SEP",
       set(tags) | {"munich", "eur"}, city="Munich", tdate=cd)
    LEDGER[-1].local_amount, LEDGER[-1].local_ccy, LEDGER[-1].fx_rate = -D(eur), "EUR", D(rate)
    fee = q2(gbp * NON_STERLING_PCT / 100)
    jt(pd, -fee, "Calder Bank", "general", "NON-STERLING TRANSACTION FEE", {"bank_fee", "fx_fee", "munich"},
       city="Munich", tdate=cd)
    if cat == "cash":
        jt(pd, -NON_STERLING_CASH_FEE, "Calder Bank", "general", "NON-STERLING CASH FEE",
           {"bank_fee", "fx_fee", "cash_fee", "munich"}, city="Munich", tdate=cd)

# ================================================================= SAVINGS ledger (OFX)
SAVER_OPENING = D("6480.00")
SAVER_RATE = D("0.0306")   # gross p.a. behind 3.10% AER, monthly interest


def saver_add(d, amount, trntype, name, memo, tags):
    return add(Txn("savings", d, q2(amount), name, "savings", set(tags), trntype=trntype,
                   ofx_name=name, memo=memo))


for m in MONTHS:
    td = next_working(salary_day(m) + dt.timedelta(days=1))
    saver_add(td, SAVER_MONTHLY, "CREDIT", "A MORGAN", "FASTER PAYMENT SAVER", {"from_monzo", "regular"})
for d, amt in SAVER_ADHOC:
    saver_add(d, amt, "CREDIT", "A MORGAN", "FASTER PAYMENT SAVER", {"from_monzo", "adhoc"})
for d, amt in SAVER_WITHDRAWALS:
    saver_add(d, -amt, "DEBIT", "A MORGAN", "TRANSFER TO 04-00-04 12345678", {"to_monzo"})
# monthly interest on the daily balance
for m in MONTHS:
    days = month_days(m)
    bal_before = SAVER_OPENING + sum((t.amount for t in LEDGER if t.acct == "savings" and t.date < days[0]), D(0))
    acc = D(0)
    for d in days:
        bal = bal_before + sum((t.amount for t in LEDGER if t.acct == "savings" and days[0] <= t.date <= d
                                and "interest" not in t.tags), D(0))
        acc += bal * SAVER_RATE / 365
    saver_add(days[-1], q2(acc), "INT", "INTEREST", "GROSS INTEREST", {"interest"})

# ================================================================= sanity checks
def acct_txns(acct):
    return [t for t in LEDGER if t.acct == acct]


def sort_key(t):
    """Chronological order used for running balances and for writing the files."""
    return (t.date, t.time or "12:00:00", t.seq)


for acct, opening in [("monzo", MONZO_OPENING), ("joint", JOINT_OPENING), ("savings", SAVER_OPENING)]:
    bal = opening
    for t in sorted(acct_txns(acct), key=sort_key):
        bal += t.amount
        assert bal > 0, (acct, t.date, bal)
    assert all(START <= t.date <= END for t in acct_txns(acct))


OPENING = {"monzo": MONZO_OPENING, "joint": JOINT_OPENING, "savings": SAVER_OPENING}


def balance_at(acct: str, d: dt.date) -> Decimal:
    """Balance at the end of day d (Monzo: main balance, pots excluded)."""
    return OPENING[acct] + sum((t.amount for t in acct_txns(acct) if t.date <= d), D(0))


def pot_balance(pot: str, d: dt.date) -> Decimal:
    return sum((-t.amount for t in acct_txns("monzo") if "pot_" + pot.lower() in t.tags and t.date <= d), D(0))


# ================================================================= writers
def write_monzo():
    ids = set()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["Transaction ID", "Date", "Time", "Type", "Name", "Emoji", "Category", "Amount", "Currency",
                "Local amount", "Local currency", "Notes and #tags", "Address", "Receipt", "Description",
                "Category split", "Money Out", "Money In"])
    alphabet = string.ascii_letters + string.digits
    for t in sorted(acct_txns("monzo"), key=sort_key):
        while True:
            tid = "tx_0000" + "".join(rng.choice(alphabet) for _ in range(18))
            if tid not in ids:
                ids.add(tid)
                break
        amt = money(t.amount)
        w.writerow([tid, t.date.strftime("%d/%m/%Y"), t.time, t.mtype, t.name, t.emoji,
                    MONZO_CAT_DISPLAY[t.cat], amt, "GBP", money(t.local_amount), t.local_ccy, t.notes,
                    t.address, "", t.desc, "", amt if t.amount < 0 else "", amt if t.amount > 0 else ""])
    (STMT / "monzo_current_account.csv").write_text(out.getvalue(), encoding="utf-8")


def write_joint():
    rows = []
    bal = JOINT_OPENING
    for t in sorted(acct_txns("joint"), key=sort_key):
        bal += t.amount
        t.balance_after = bal
        rows.append([t.date.strftime("%d/%m/%Y"), t.desc, money(t.amount), money(bal)])
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(["Date", "Description", "Amount", "Balance"])
    for r in reversed(rows):            # the bank exports newest first
        w.writerow(r)
    (STMT / "calder_joint_account.csv").write_text(out.getvalue(), encoding="utf-8")


def ofx_dt(d: dt.date) -> str:
    return d.strftime("%Y%m%d") + "120000[0:GMT]"


def write_ofx():
    ts = sorted(acct_txns("savings"), key=sort_key)
    lines = ["OFXHEADER:100", "DATA:OFXSGML", "VERSION:102", "SECURITY:NONE", "ENCODING:USASCII",
             "CHARSET:1252", "COMPRESSION:NONE", "OLDFILEUID:NONE", "NEWFILEUID:NONE", "",
             "<OFX>", "<SIGNONMSGSRSV1>", "<SONRS>", "<STATUS>", "<CODE>0", "<SEVERITY>INFO", "</STATUS>",
             "<DTSERVER>20261031235900[0:GMT]", "<LANGUAGE>ENG", "</SONRS>", "</SIGNONMSGSRSV1>",
             "<BANKMSGSRSV1>", "<STMTTRNRS>", "<TRNUID>1", "<STATUS>", "<CODE>0", "<SEVERITY>INFO", "</STATUS>",
             "<STMTRS>", "<CURDEF>GBP", "<BANKACCTFROM>", "<BANKID>401276", "<ACCTID>40127683015527",
             "<ACCTTYPE>SAVINGS", "</BANKACCTFROM>", "<BANKTRANLIST>",
             "<DTSTART>" + ofx_dt(START), "<DTEND>" + ofx_dt(END)]
    for i, t in enumerate(ts, 1):
        lines += ["<STMTTRN>", "<TRNTYPE>" + t.trntype, "<DTPOSTED>" + ofx_dt(t.date),
                  "<TRNAMT>" + money(t.amount), f"<FITID>{t.date.strftime('%Y%m%d')}{i:04d}",
                  "<NAME>" + t.ofx_name, "<MEMO>" + t.memo, "</STMTTRN>"]
    closing = balance_at("savings", END)
    lines += ["</BANKTRANLIST>", "<LEDGERBAL>", "<BALAMT>" + money(closing), "<DTASOF>20261031235900[0:GMT]",
              "</LEDGERBAL>", "<AVAILBAL>", "<BALAMT>" + money(closing), "<DTASOF>20261031235900[0:GMT]",
              "</AVAILBAL>", "</STMTRS>", "</STMTTRNRS>", "</BANKMSGSRSV1>", "</OFX>", ""]
    (STMT / "calder_easy_saver.ofx").write_text("\r\n".join(lines), encoding="ascii")


ACCOUNTS_MD = """# My accounts

These are the exports I downloaded on 1 November 2026. They cover June to October 2026.

## monzo_current_account.csv — my Monzo current account

My own current account with Monzo (just me, Alex Morgan). My salary goes in here and it's the card I use
for day-to-day stuff: food shopping, coffee, TfL, takeaways, subscriptions, my phone and the gym.
Exported from the Monzo app (Help → Export transactions → CSV, all of June to October).

- The Monzo export doesn't have a balance column. My main balance was **£{monzo_open}** on the
  morning of 1 June 2026, before any of the June transactions.
- The "Pot transfer" lines are money moved between my main balance and my two pots, **Holiday** and
  **Christmas**. Both pots were empty on 1 June.
- In Munich (14–19 September) I paid on the Monzo card in euros. The Amount column is in pounds; the
  euro figure is in Local amount.

## calder_joint_account.csv — joint account with Sam (Calder Bank)

Our joint current account with Calder Bank (a Calder Plus account), shared with my partner Sam Patel.
The rent, council tax and household bills go out of it, and we each pay in £{contrib} a month after
payday. Sam uses this card most, including in Munich, where the hotel went on it.
Downloaded from Calder online banking as CSV: newest transactions at the top, and the Balance column
is the balance after each line.

## calder_easy_saver.ofx — my savings account (Calder Bank)

My Calder Bank Easy Access Saver, in my name only. I pay into it from Monzo after payday and now and then
when there's money left over; interest is paid monthly. Downloaded as OFX ("Microsoft Money" format)
from Calder online banking.

## fees.md

Calder Bank's fee page for the Calder Plus account and the saver, copied from their website.
"""

FEES_MD = """# Calder Bank — Calder Plus Current Account: fees and charges

*Effective from 1 April 2026. These charges apply to sole and joint Calder Plus accounts.*

## Running your account

| Item | Charge |
|---|---|
| Monthly account fee | £{monthly_fee} a month, taken on the 15th (or the next working day) |
| Paper statements | Free once a month; copy statements £5.00 each |
| CHAPS payment | £25.00 |
| Faster Payments, Direct Debits and standing orders | Free |

## Overdrafts

Arranged overdraft interest is **{od}** EAR (variable). There are no monthly or daily overdraft fees.
We don't offer an unarranged overdraft: if there isn't enough money in your account we will usually
return the payment, and we don't charge for doing so.

## Using your card

| Item | Charge |
|---|---|
| Cash withdrawals in the UK | Free at any UK cash machine |
| Non-sterling transaction fee | **{pct}%** of the value of each card purchase or cash withdrawal in a foreign currency |
| Non-sterling cash fee | **£{cash_fee}** per cash withdrawal abroad, on top of the non-sterling transaction fee |
| Replacement debit card (lost or damaged) | **£{card_fee}** per card |
| Renewal of an expired card | Free |
| Emergency cash abroad | £15.00 |

Non-sterling transactions are converted at the Mastercard exchange rate on the day they reach us.
The fees are shown as separate lines on your statement ("NON-STERLING TRANSACTION FEE",
"NON-STERLING CASH FEE").

## Calder Easy Access Saver

Interest rate: **{aer} AER** / 3.06% gross a year (variable), calculated daily and paid on the last
day of each month. No charges for withdrawals; money can be moved to any UK account in your name.

If you have a question about a charge, call us on 0345 600 4411 or send us a message in the app.
"""


def write_docs():
    (STMT / "accounts.md").write_text(ACCOUNTS_MD.format(monzo_open=f"{MONZO_OPENING:,}", contrib=f"{JOINT_CONTRIB:,.0f}"),
                                      encoding="utf-8")
    (STMT / "fees.md").write_text(FEES_MD.format(monthly_fee=MONTHLY_FEE, od=OVERDRAFT_EAR, pct=NON_STERLING_PCT,
                                                 cash_fee=NON_STERLING_CASH_FEE, card_fee=REPLACEMENT_CARD_FEE,
                                                 aer=SAVER_AER), encoding="utf-8")


def write_statements():
    STMT.mkdir(parents=True, exist_ok=True)
    write_monzo()
    write_joint()
    write_ofx()
    write_docs()


# ================================================================= question helpers
def M(m):
    return (dt.date(2026, m, 1), dt.date(2026, m, calendar.monthrange(2026, m)[1]))


ALL = (START, END)
SUMMER = (dt.date(2026, 6, 1), dt.date(2026, 8, 31))
ACCT_LABEL = {"monzo": "Monzo", "joint": "joint account", "savings": "savings account"}


def span(a, b):
    return (a, b)


def txs(accts, period=ALL, pred=None):
    s, e = period
    return [t for t in LEDGER if t.acct in accts and s <= t.date <= e and (pred is None or pred(t))]


def spend(accts, period=ALL, pred=None) -> Decimal:
    """Money out as a positive figure; refunds matching the same filter are netted."""
    return -sum((t.amount for t in txs(accts, period, pred)), D(0))


def spend_eur(accts, period=ALL, pred=None) -> Decimal:
    rows = txs(accts, period, pred)
    assert all(t.local_ccy == "EUR" for t in rows)
    return -sum((t.local_amount for t in rows), D(0))


def inflow(accts, period=ALL, pred=None) -> Decimal:
    return sum((t.amount for t in txs(accts, period, pred) if t.amount > 0), D(0))


def outs(accts, period=ALL, pred=None):
    return [t for t in txs(accts, period, pred) if t.amount < 0]


def count_out(accts, period=ALL, pred=None) -> int:
    return len(outs(accts, period, pred))


def MER(*names):
    return lambda t: t.merchant in names


def CAT(*cats):
    return lambda t: t.cat in cats


def TAG(*tags):
    return lambda t: bool(t.tags & set(tags))


def AND(*ps):
    return lambda t: all(p(t) for p in ps)


def NOT(p):
    return lambda t: not p(t)


SPENDING = CAT(*[c for c in MONZO_CAT_DISPLAY if c not in ("income", "transfers", "savings")])
CARD_PURCHASE = lambda t: (t.mtype == "Card payment" and t.cat != "cash") if t.acct == "monzo" else \
    (t.cat not in ("cash", "transfers", "general") and not t.desc.startswith(("DIRECT DEBIT", "STANDING ORDER")))
GROCERIES = CAT("groceries")
COFFEE = TAG("coffee")
TAKEAWAY = TAG("takeaway")
CINEMA = TAG("cinema")
MUNICH = TAG("munich")
LEEDS = lambda t: t.city == "Leeds"
HOUSE_BILLS_NO_RENT = AND(CAT("bills"), NOT(TAG("rent")))
BANK_FEES = TAG("bank_fee")


def amt(x, ccy="GBP"):
    x = q2(x)
    assert x > 0, x
    return {"type": "amount", "value": str(x), "currency": ccy}


def cnt(n):
    assert n > 0
    return {"type": "count", "value": n}


def avg(values):
    values = [q2(v) for v in values]
    assert values
    return {"type": "average", "value": str(q2(sum(values, D(0)) / len(values))), "currency": "GBP"}


def name(x):
    return {"type": "name", "value": x}


def bal(x, acct, as_of):
    return {"type": "balance", "value": money(x), "currency": "GBP", "as_of": str(as_of), "account": acct}


def cmp(values: dict):
    assert len(set(q2(v) for v in values.values())) == len(values), values   # no ties
    return {"type": "compare", "values": {k: money(v) for k, v in values.items()}, "currency": "GBP"}


def amts(values: dict, ccy="GBP"):
    assert all(q2(v) > 0 for v in values.values()), values
    return {"type": "amounts", "values": {k: money(v) for k, v in values.items()}, "currency": ccy}


def mixed(x, doc_fact):
    return {"type": "mixed", "value": money(x), "currency": "GBP", "doc_fact": doc_fact}


def text(*facts):
    return {"type": "text", "facts": list(facts)}


def none_(words, accts=("monzo", "joint", "savings")):
    """Assert that nothing in the statements mentions any of the words."""
    for t in LEDGER:
        if t.acct in accts:
            hay = " ".join([t.desc, t.name, t.notes, t.merchant, t.address, t.ofx_name, t.memo]).lower()
            for w in words:
                assert w.lower() not in hay, (w, t.desc)
    return {"type": "none"}


def argmax(d: dict):
    items = sorted(d.items(), key=lambda kv: kv[1], reverse=True)
    assert len(items) == 1 or items[0][1] > items[1][1], items[:2]
    return items[0][0]


def biggest(rows):
    rows = sorted(rows, key=lambda t: t.amount)          # most negative first
    assert len(rows) == 1 or rows[0].amount < rows[1].amount, [(r.merchant, r.amount) for r in rows[:2]]
    return rows[0]


def same(*values):
    """For relative periods with more than one reasonable reading: the readings must agree."""
    assert len(set(values)) == 1, values
    return values[0]


QUESTIONS = []


def Q(kind, question, expected, accounts, note, as_of="2026-10-31"):
    QUESTIONS.append({"kind": kind, "question": question, "as_of": str(as_of), "expected": expected,
                      "accounts": list(accounts), "note": note})


MZ_ = ["monzo"]
JT_ = ["joint"]
SV_ = ["savings"]
BOTH = ["monzo", "joint"]
MN = {m: f"{MONTH_NAME[m]} 2026" for m in MONTHS}
REFUND_NOTE = "refunds netted"


# ================================================================= QUESTIONS
def build_questions():
    # ------------------------------------------------------------ merchant
    k = "merchant"
    Q(k, "How much have I spent at Tesco since June?", amt(spend(MZ_, ALL, MER("Tesco"))), MZ_,
      "All Monzo card payments to Tesco (Tesco Stores and Tesco Express) 1 Jun-31 Oct 2026.")
    Q(k, "how much did i spend in tesco in august", amt(spend(MZ_, M(8), MER("Tesco"))), MZ_,
      "Monzo card payments to Tesco/Tesco Express in August 2026.")
    Q(k, "How much did we spend at Tesco in September?", amt(spend(JT_, M(9), MER("Tesco"))), JT_,
      "Joint account lines TESCO STORES 3021 LONDON dated September 2026.")
    Q(k, "total spent at sainsburys in july across both accounts?",
      amt(spend(BOTH, M(7), MER("Sainsbury's"))), BOTH,
      "Sainsbury's card payments in July 2026 on Monzo plus joint account (SAINSBURYS S/MKT ...).")
    Q(k, "How much have I spent at Lidl?", amt(spend(MZ_, ALL, MER("Lidl"))), MZ_,
      "All Monzo card payments to Lidl, Jun-Oct 2026.")
    Q(k, "What did Waitrose cost us in October?", amt(spend(JT_, M(10), MER("Waitrose"))), JT_,
      "Joint account WAITROSE 0714 LONDON lines in October 2026.")
    Q(k, "How much in total have I given Deliveroo?", amt(spend(MZ_, ALL, MER("Deliveroo"))), MZ_,
      f"Monzo Deliveroo payments Jun-Oct 2026, the £6.50 refund of 27 Aug netted ({REFUND_NOTE}).")
    Q(k, "how much have i spent on just eat", amt(spend(MZ_, ALL, MER("Just Eat"))), MZ_,
      "Monzo Just Eat payments Jun-Oct 2026.")
    Q(k, "Uber Eats spend in July?", amt(spend(MZ_, M(7), MER("Uber Eats"))), MZ_,
      "Monzo 'UBER *EATS' payments in July 2026 (not Uber rides).")
    Q(k, "How much did I spend on Uber rides?", amt(spend(MZ_, ALL, MER("Uber"))), MZ_,
      "Monzo 'UBER *TRIP' payments (category Transport) Jun-Oct 2026, including the Leeds ride and the "
      "ride to Heathrow; Uber Eats excluded.")
    Q(k, "how much did I spend at pret in september", amt(spend(MZ_, M(9), MER("Pret A Manger"))), MZ_,
      "Monzo Pret A Manger payments in September 2026.")
    Q(k, "What did I spend at Caffe Nero in August?", amt(spend(MZ_, M(8), MER("Caffè Nero"))), MZ_,
      "Monzo Caffè Nero payments (CAFFE NERO 0312) in August 2026.")
    Q(k, "What have I spent at Boots?", amt(spend(MZ_, ALL, MER("Boots"))), MZ_,
      "Monzo Boots payments Jun-Oct 2026.")
    Q(k, "How much has the joint account spent in Boots?", amt(spend(JT_, ALL, MER("Boots"))), JT_,
      "Joint account BOOTS lines (BOOTS UK 1234 LEEDS and BOOTS 1123 BRIXTON LONDON), Jun-Oct 2026.")
    Q(k, "How much did I pay Trainline after the refund?", amt(spend(MZ_, ALL, MER("Trainline"))), MZ_,
      "Monzo Trainline: 71.40 (Leeds) + 23.10 (Brighton) - 21.10 refund.")
    Q(k, "how much have I spent on amazon", amt(spend(MZ_, ALL, MER("Amazon"))), MZ_,
      f"Monzo Amazon payments Jun-Oct 2026 with the 3 Sep refund of 36.49 netted ({REFUND_NOTE}).")
    Q(k, "What did ASOS end up costing me once the return was refunded?", amt(spend(MZ_, ALL, MER("ASOS"))), MZ_,
      "Monzo ASOS: 68.00 order minus 34.00 refund.")
    Q(k, "How much have we paid Octopus Energy since June?", amt(spend(JT_, ALL, MER("Octopus Energy"))), JT_,
      "Joint account DIRECT DEBIT OCTOPUS ENERGY Jun-Oct 2026.")
    Q(k, "how much has gone to thames watter", amt(spend(JT_, ALL, MER("Thames Water"))), JT_,
      "Joint account DIRECT DEBIT THAMES WATER Jun-Oct 2026.")
    Q(k, "how much did i spend at dishoom", amt(spend(MZ_, ALL, MER("Dishoom"))), MZ_,
      "Monzo Dishoom payments Jun-Oct 2026.")
    Q(k, "How much have I spent at Odeon?", amt(spend(MZ_, ALL, MER("Odeon"))), MZ_,
      "Monzo Odeon payments Jun-Oct 2026.")
    Q(k, "how much did i pay british airways for the flights", amt(spend(MZ_, ALL, MER("British Airways"))), MZ_,
      "Monzo British Airways payment (Munich flights) on 2 Jul 2026.")
    Q(k, "How much have I paid EE since June?", amt(spend(MZ_, ALL, MER("EE"))), MZ_,
      "Monzo Direct Debits to EE, Jun-Oct 2026.")
    Q(k, "How much have we spent on Ocado?", amt(spend(JT_, ALL, MER("Ocado"))), JT_,
      "Joint account CARD PAYMENT TO OCADO RETAIL LTD lines Jun-Oct 2026.")
    Q(k, "how much has the joint account paid puregym", amt(spend(JT_, ALL, MER("PureGym"))), JT_,
      "Joint account CARD PAYMENT TO PUREGYM LTD lines Jun-Oct 2026.")
    Q(k, "How much did I spend at the Hofbräuhaus?", amt(spend(MZ_, ALL, MER("Hofbräuhaus München"))), MZ_,
      "Monzo Hofbräuhaus München payment, GBP Amount (not the EUR local amount).")
    Q(k, "what did the munich hotel cost in pounds", amt(spend(JT_, ALL, MER("Hotel am Viktualienmarkt"))), JT_,
      "Joint account HOTEL AM VIKTUALIENMARKT line in GBP, without the separate non-sterling fee line.")
    Q(k, "How much did we spend at IKEA?", amt(spend(JT_, ALL, MER("IKEA"))), JT_, "Joint account IKEA LTD WEMBLEY.")
    Q(k, "How much have I spent at Franco Manca, both accounts?", amt(spend(BOTH, ALL, MER("Franco Manca"))), BOTH,
      "Franco Manca on Monzo plus FRANCO MANCA BRIXTON LONDON on the joint account, Jun-Oct 2026.")
    Q(k, "How much did I spend in Waterstones?", amt(spend(MZ_, ALL, MER("Waterstones"))), MZ_,
      "Monzo Waterstones payment (Aug 2026).")
    Q(k, "how much council tax have we paid since june", amt(spend(JT_, ALL, MER("Lambeth Council"))), JT_,
      "Joint account DIRECT DEBIT LB LAMBETH COUNCIL TAX, Jun-Oct 2026.")
    Q(k, "How much have I given Cancer Research UK?", amt(spend(MZ_, ALL, MER("Cancer Research UK"))), MZ_,
      "Monzo Direct Debits to Cancer Research UK, Jun-Oct 2026.")
    Q(k, "What did I spend at Monmouth Coffee in July?", amt(spend(MZ_, M(7), MER("Monmouth Coffee"))), MZ_,
      "Monzo Monmouth Coffee Company payments in July 2026.")

    # ------------------------------------------------------------ category
    k = "category"
    Q(k, "How much did I spend on food shopping in August?", amt(spend(MZ_, M(8), GROCERIES)), MZ_,
      "Monzo category Groceries in August 2026.")
    Q(k, "how much did we spend on groceries in september on the joint account",
      amt(spend(JT_, M(9), GROCERIES)), JT_,
      "Joint account supermarket lines (Tesco, Sainsbury's, Waitrose, Lidl, Ocado) dated September 2026.")
    Q(k, "What was the total food shop bill in July, both accounts together?",
      amt(spend(BOTH, M(7), GROCERIES)), BOTH,
      "Monzo category Groceries + joint account supermarket lines (incl. Ocado), July 2026.")
    Q(k, "How much did I spend eating out in June?", amt(spend(MZ_, M(6), CAT("eating_out"))), MZ_,
      "Monzo category 'Eating out' in June 2026 as exported (includes coffee shops and takeaways).")
    Q(k, "how much on takeaways in august", amt(spend(MZ_, M(8), TAKEAWAY)), MZ_,
      "Monzo Deliveroo + Just Eat + Uber Eats in August 2026, the £6.50 Deliveroo refund of 27 Aug netted.")
    Q(k, "What did we spend on takeaways in October on the joint account?", amt(spend(JT_, M(10), TAKEAWAY)), JT_,
      "Joint account CARD PAYMENT TO JUST EAT / DELIVEROO lines dated October 2026.")
    Q(k, "what did i spend on coffee in july", amt(spend(MZ_, M(7), COFFEE)), MZ_,
      "Monzo payments to coffee shops (Pret A Manger, Caffè Nero, Monmouth Coffee) in July 2026, "
      "including the Pret in Leeds.")
    Q(k, "How much have I spent on coffee since June?", amt(spend(MZ_, ALL, COFFEE)), MZ_,
      "Monzo Pret A Manger + Caffè Nero + Monmouth Coffee, Jun-Oct 2026.")
    Q(k, "how much did i spend on the cinima", amt(spend(MZ_, ALL, CINEMA)), MZ_,
      "Monzo Odeon + Vue + Everyman, Jun-Oct 2026.")
    Q(k, "cinema spending in august, both accounts", amt(spend(BOTH, M(8), CINEMA)), BOTH,
      "August 2026: Monzo Odeon and Vue + joint account EVERYMAN CINEMAS.")
    Q(k, "How much did my bills come to in September?", amt(spend(MZ_, M(9), CAT("bills"))), MZ_,
      "Monzo category Bills in September 2026 (EE + Apple/iCloud).")
    Q(k, "What did our bills come to in August, rent included?", amt(spend(JT_, M(8), CAT("bills"))), JT_,
      "Joint account Aug 2026: rent standing order, council tax, Octopus, Thames Water, Virgin Media, "
      "TV licence. Bank fees are not bills.")
    Q(k, "how much were the household bills in october not counting rent",
      amt(spend(JT_, M(10), HOUSE_BILLS_NO_RENT)), JT_,
      "Joint account Oct 2026: council tax + Octopus + Thames Water + Virgin Media + TV licence.")
    Q(k, "How much did I spend on transport in July?", amt(spend(MZ_, M(7), CAT("transport"))), MZ_,
      "Monzo category Transport, July 2026: TfL, Uber rides (incl. Leeds), Trainline.")
    Q(k, "How much did I spend on shopping in July?", amt(spend(MZ_, M(7), CAT("shopping"))), MZ_,
      "Monzo category Shopping, July 2026: ASOS 68.00 minus the 34.00 refund.")
    Q(k, "What did I spend on personal care in September?", amt(spend(MZ_, M(9), CAT("personal_care"))), MZ_,
      "Monzo category 'Personal care', Sep 2026: PureGym, Boots, Ruffians.")
    Q(k, "How much went on entertainment in June?", amt(spend(MZ_, M(6), CAT("entertainment"))), MZ_,
      "Monzo category Entertainment, June 2026: Netflix, Spotify, Disney+, Odeon.")
    Q(k, "How much have I spent on holidays?", amt(spend(MZ_, ALL, CAT("holidays"))), MZ_,
      "Monzo category Holidays Jun-Oct 2026: BA flights + Munich card payments. The Munich cash "
      "withdrawal is category Cash and not included.")
    Q(k, "how much do i spend on haircuts", amt(spend(MZ_, ALL, MER("Ruffians"))), MZ_,
      "Monzo Ruffians (barber) payments Jun-Oct 2026.")
    Q(k, "How much have I given to charity?", amt(spend(MZ_, ALL, CAT("charity"))), MZ_,
      "Monzo category Charity: Cancer Research UK Direct Debits + JustGiving.")
    Q(k, "How much did I spend on presents and cards?", amt(spend(MZ_, ALL, CAT("gifts"))), MZ_,
      "Monzo category Gifts: Moonpig + Etsy.")
    Q(k, "How much did we spend on restaurants on the joint account in August?",
      amt(spend(JT_, M(8), TAG("restaurant"))), JT_,
      "Joint account restaurant card payments (not takeaways) dated August 2026.")
    Q(k, "How much did we spend eating out in August, both accounts?", amt(spend(BOTH, M(8), CAT("eating_out"))), BOTH,
      "Monzo category 'Eating out' (coffee, restaurants, takeaways; Deliveroo refund netted) + joint "
      "account restaurants and takeaways, August 2026.")
    Q(k, "What did we spend at the chemist, both accounts?", amt(spend(BOTH, ALL, TAG("pharmacy"))), BOTH,
      "All Boots payments on Monzo and on the joint account, Jun-Oct 2026.")
    Q(k, "How much did I spend on the tube and buses in August?", amt(spend(MZ_, M(8), MER("TfL"))), MZ_,
      "Monzo Transport for London (TFL TRAVEL CH) charges in August 2026.")
    Q(k, "How much cash did I take out in the UK?",
      amt(spend(MZ_, ALL, AND(CAT("cash"), NOT(MUNICH)))), MZ_,
      "Monzo category Cash excluding the Munich withdrawal: 40 + 20 + 30.")
    Q(k, "How much did streaming cost me in July?", amt(spend(MZ_, M(7), TAG("streaming"))), MZ_,
      "Monzo Netflix + Spotify + Disney+ in July 2026.")
    Q(k, "how much have we paid in bank charges on the joint account", amt(spend(JT_, ALL, BANK_FEES)), JT_,
      "All fee lines on the joint account: monthly account fees, replacement card fee, non-sterling fees.")
    Q(k, "What did we spend on household stuff on the joint card?", amt(spend(JT_, ALL, CAT("shopping"))), JT_,
      "Joint account shopping: IKEA, Argos, Robert Dyas, Amazon.")
    Q(k, "food shopping in october, both accounts", amt(spend(BOTH, M(10), GROCERIES)), BOTH,
      "Monzo Groceries + joint supermarket lines incl. Ocado, October 2026.")
    Q(k, "How much did I spend on groceries in June?", amt(spend(MZ_, M(6), GROCERIES)), MZ_,
      "Monzo category Groceries, June 2026.")
    Q(k, "How much did we spend eating out in June on the joint account?", amt(spend(JT_, M(6), CAT("eating_out"))), JT_,
      "Joint account restaurants + takeaways dated June 2026.")
    Q(k, "What did I spend on coffee in October?", amt(spend(MZ_, M(10), COFFEE)), MZ_,
      "Monzo Pret + Caffè Nero + Monmouth Coffee, October 2026.")
    Q(k, "How much have Sam and I spent on takeaways altogether?", amt(spend(BOTH, ALL, TAKEAWAY)), BOTH,
      "Deliveroo, Just Eat and Uber Eats on Monzo (refund netted) + joint account Deliveroo/Just Eat, Jun-Oct 2026.")
    Q(k, "how much did i spend on general stuff", amt(spend(MZ_, ALL, CAT("general"))), MZ_,
      "Monzo category General: the Post Office payment.")
    Q(k, "How much did I spend on family?", amt(spend(MZ_, ALL, CAT("family"))), MZ_,
      "Monzo category Family: the two payments to Margaret Morgan (Mum).")
    Q(k, "How much did I spend on eating out in October?", amt(spend(MZ_, M(10), CAT("eating_out"))), MZ_,
      "Monzo category 'Eating out', October 2026 (coffee, restaurants, takeaways).")
    Q(k, "What did our utilities cost in September? (energy and water)",
      amt(spend(JT_, M(9), MER("Octopus Energy", "Thames Water"))), JT_,
      "Joint account Octopus Energy + Thames Water Direct Debits, Sep 2026.")

    # ------------------------------------------------------------ place
    k = "place"
    Q(k, "How much did I spend in Munich?", amt(spend(MZ_, ALL, MUNICH)), MZ_,
      "All Monzo transactions in Munich 14-19 Sep 2026 (MUENCHEN/München), GBP Amount, including the "
      "€100 cash withdrawal (GBP 85.63). Flights booked in London are not included.")
    Q(k, "how many euros did i spend in munich", amt(spend_eur(MZ_, ALL, MUNICH), "EUR"), MZ_,
      "Sum of the Monzo Local amount (EUR) of the Munich transactions, including the €100 withdrawal. "
      "Currency EUR.")
    Q(k, "What did the Munich trip cost on the joint account, fees included?", amt(spend(JT_, ALL, MUNICH)), JT_,
      "Joint account lines from Munich: hotel, Dallmayr, cash withdrawal, plus the non-sterling "
      "transaction and cash fees, in GBP.")
    Q(k, "How much did we spend in Munich altogether, in pounds?", amt(spend(BOTH, ALL, MUNICH)), BOTH,
      "Monzo Munich transactions (incl. cash) + joint account Munich lines and their fees, GBP. "
      "Excludes the BA flights paid in July.")
    Q(k, "How much did I spend in Leeds?", amt(spend(MZ_, ALL, LEEDS)), MZ_,
      "Monzo payments made in Leeds 17-19 Jul 2026 (Pret, Whitelock's, Kirkgate Market, Uber, Royal "
      "Armouries). The Trainline tickets were bought online from London and are not included.")
    Q(k, "What did we spend in Leeds on the joint card?", amt(spend(JT_, ALL, LEEDS)), JT_,
      "Joint account BOOTS UK 1234 LEEDS + BILLS RESTAURANT LEEDS.")
    Q(k, "how much did the leeds weekend cost us in total on both accounts, not counting the train",
      amt(spend(BOTH, ALL, LEEDS)), BOTH,
      "All payments made in Leeds on Monzo and the joint account (train tickets excluded).")
    Q(k, "How much did I spend in restaurants and beer halls in Munich?",
      amt(spend(MZ_, ALL, AND(MUNICH, TAG("restaurant", "oktoberfest")))), MZ_,
      "Monzo Munich, GBP: Augustiner Bräustuben, Hofbräuhaus, Der Pschorr, Paulaner am Nockherberg, "
      "Schottenhamel (Oktoberfest tent), Airbräu (airport). Rischart bakery and REWE not included.")
    Q(k, "How much did getting around Munich cost me?", amt(spend(MZ_, ALL, AND(MUNICH, TAG("munich_transport")))),
      MZ_, "Monzo MVG ticket machine payments in Munich, GBP.")
    Q(k, "How much cash did I take out in Munich, in euros?",
      amt(spend_eur(MZ_, ALL, AND(MUNICH, CAT("cash"))), "EUR"), MZ_,
      "Monzo Stadtsparkasse München ATM withdrawal, Local amount in EUR.")

    # ------------------------------------------------------------ transfers & savings
    k = "transfers"
    saver_in = lambda p=ALL: inflow(SV_, p, TAG("from_monzo"))
    Q(k, "How much have I paid into the savings account?", amt(saver_in()), SV_,
      "Credits into the Calder Easy Saver from Monzo Jun-Oct 2026 (regular + one-off), interest "
      "excluded, withdrawals not subtracted.")
    Q(k, "How much have I put into savings net of what I took back out?",
      amt(saver_in() - spend(SV_, ALL, TAG("to_monzo"))), SV_,
      "Saver: transfers in minus the two withdrawals to Monzo; interest excluded.")
    Q(k, "How much did I move into savings in July?", amt(saver_in(M(7))), SV_,
      "Saver credits from Monzo in July 2026 (interest excluded).")
    Q(k, "How much have I taken out of my savings?", amt(spend(SV_, ALL, TAG("to_monzo"))), SV_,
      "The two saver withdrawals to Monzo (10 Sep, 20 Oct).")
    Q(k, "How much interest has the saver paid me?", amt(inflow(SV_, ALL, TAG("interest"))), SV_,
      "Sum of the five monthly INT (interest) credits, Jun-Oct 2026.")
    Q(k, "how much intrest did i get in september", amt(inflow(SV_, M(9), TAG("interest"))), SV_,
      "Saver interest credited 30 Sep 2026.")
    Q(k, "How much did I put in the Holiday pot?", amt(-sum((t.amount for t in txs(MZ_, ALL, TAG("pot_holiday"))
                                                             if t.amount < 0), D(0))), MZ_,
      "Monzo Pot transfers into the Holiday pot, Jun-Aug 2026 (gross, before the Sep withdrawal).")
    Q(k, "How much did I take back out of the Holiday pot?", amt(inflow(MZ_, ALL, TAG("pot_holiday"))), MZ_,
      "Monzo Pot transfer from Holiday back to the main balance on 11 Sep 2026.")
    Q(k, "how much have i transfered to the joint account", amt(spend(MZ_, ALL, TAG("to_joint"))), MZ_,
      "Monzo Faster payments to MORGAN A & PATEL S (ref JOINT), Jun-Oct 2026.")
    Q(k, "How much has Sam paid into the joint account?", amt(inflow(JT_, ALL, TAG("from_sam"))), JT_,
      "Joint account FASTER PAYMENT FROM S PATEL lines, Jun-Oct 2026.")
    Q(k, "How much did we pay into the joint account between us in August?", amt(inflow(JT_, M(8))), JT_,
      "Joint account credits in August 2026: from A Morgan and from S Patel.")
    Q(k, "How much have I put into pots in total?", amt(-sum((t.amount for t in txs(MZ_, ALL, TAG("pot"))
                                                              if t.amount < 0), D(0))), MZ_,
      "Gross Monzo Pot transfers into Holiday and Christmas pots, Jun-Oct 2026.")
    Q(k, "How much did Jamie pay me back?", amt(inflow(MZ_, ALL, MER("Jamie Clarke"))), MZ_,
      "Monzo Faster payment from Jamie Clarke (ref CINEMA), 12 Jul 2026.")
    Q(k, "How much have I sent my mum?", amt(spend(MZ_, ALL, MER("Mum"))), MZ_,
      "Monzo Faster payments to Margaret Morgan, Jun-Oct 2026.")
    Q(k, "How much have I saved for Christmas so far?", amt(pot_balance("Christmas", END)), MZ_,
      "Net Monzo Pot transfers into the Christmas pot (40 + 50 + 50), nothing taken out.")
    Q(k, "how much did i move to savings in october", amt(saver_in(M(10))), SV_,
      "Saver credits from Monzo in October 2026, interest excluded.")

    # ------------------------------------------------------------ income
    k = "income"
    SAL = MER("Northwind Analytics")
    Q(k, "How much was my salary in June?", amt(inflow(MZ_, M(6), SAL)), MZ_,
      "Monzo Bacs credit from Northwind Analytics Ltd on 25 Jun 2026.")
    Q(k, "How much did I get paid in total from June to October?", amt(inflow(MZ_, ALL, SAL)), MZ_,
      "Sum of the five Northwind Analytics salary credits.")
    Q(k, "whats my take home pay now", amt(inflow(MZ_, M(10), SAL)), MZ_,
      "Latest salary credit (23 Oct 2026).")
    Q(k, "By how much did my pay go up?", amt(inflow(MZ_, M(8), SAL) - inflow(MZ_, M(7), SAL)), MZ_,
      "Salary from August (3226.40) minus salary before (3142.18).")
    Q(k, "How much income did I have in August?", amt(inflow(MZ_, M(8), CAT("income"))), MZ_,
      "Monzo category Income in Aug 2026: salary + Vinted payout.")
    Q(k, "How much have I made selling on Vinted?", amt(inflow(MZ_, ALL, MER("Vinted"))), MZ_,
      "Monzo Vinted payouts (Jun and Aug 2026).")
    Q(k, "How much was the tax refund?", amt(inflow(MZ_, ALL, MER("HMRC"))), MZ_, "Monzo HMRC credit 13 Oct 2026.")
    Q(k, "total income in october?", amt(inflow(MZ_, M(10), CAT("income"))), MZ_,
      "Monzo category Income, Oct 2026: salary + HMRC refund.")
    Q(k, "How much did I earn altogether, including Vinted and the tax refund?",
      amt(inflow(MZ_, ALL, CAT("income"))), MZ_, "All Monzo category Income credits, Jun-Oct 2026.")
    Q(k, "How much money came into the joint account in total?", amt(inflow(JT_, ALL)), JT_,
      "All joint account credits Jun-Oct 2026 (contributions from Alex and Sam).")

    # ------------------------------------------------------------ comparison of periods
    k = "comparison"

    def C(accts, pred, months, fn=spend):
        return cmp({MN[m]: fn(accts, M(m), pred) for m in months})

    Q(k, "Did I spend more on food shopping in July or August?", C(MZ_, GROCERIES, [7, 8]), MZ_,
      "Monzo category Groceries, Jul vs Aug 2026.")
    Q(k, "did i spend more on takeaways in july or august", C(MZ_, TAKEAWAY, [7, 8]), MZ_,
      "Monzo Deliveroo/Just Eat/Uber Eats, refund netted, Jul vs Aug 2026.")
    Q(k, "Compare my coffee spending in June and October", C(MZ_, COFFEE, [6, 10]), MZ_,
      "Monzo Pret + Caffè Nero + Monmouth Coffee, Jun vs Oct 2026.")
    Q(k, "Was the energy bill higher in September or October?", C(JT_, MER("Octopus Energy"), [9, 10]), JT_,
      "Joint account Octopus Energy Direct Debits, Sep vs Oct 2026.")
    Q(k, "Did we spend more on groceries in June or July on the joint account?", C(JT_, GROCERIES, [6, 7]), JT_,
      "Joint account supermarket lines incl. Ocado, Jun vs Jul 2026.")
    Q(k, "How did my eating out compare between July and August?", C(MZ_, CAT("eating_out"), [7, 8]), MZ_,
      "Monzo category 'Eating out', Jul vs Aug 2026.")
    Q(k, "Compare my transport spending in June and August", C(MZ_, CAT("transport"), [6, 8]), MZ_,
      "Monzo category Transport (TfL, Uber rides), Jun vs Aug 2026.")
    Q(k, "did i spend more on the cinema in july or in august", C(MZ_, CINEMA, [7, 8]), MZ_,
      "Monzo Odeon/Vue/Everyman, Jul vs Aug 2026.")
    Q(k, "Compare our eating out on the joint account in September and October",
      C(JT_, CAT("eating_out"), [9, 10]), JT_, "Joint account restaurants + takeaways, Sep vs Oct 2026.")
    Q(k, "Did I spend more on Uber rides in June or August?", C(MZ_, MER("Uber"), [6, 8]), MZ_,
      "Monzo Uber rides (not Uber Eats), Jun vs Aug 2026.")
    Q(k, "Did our Sainsbury's spending go up from July to August?", C(JT_, MER("Sainsbury's"), [7, 8]), JT_,
      "Joint account SAINSBURYS lines, Jul vs Aug 2026.")
    Q(k, "How much did I spend overall in July compared with August?", C(MZ_, SPENDING, [7, 8]), MZ_,
      "All Monzo spending: every category except Income, Transfers and Savings (so transfers to the "
      "joint account, the saver and pots are excluded), refunds netted.")
    Q(k, "compare june and october grocery spend on both accounts", C(BOTH, GROCERIES, [6, 10]), BOTH,
      "Monzo Groceries + joint supermarket lines incl. Ocado, Jun vs Oct 2026.")
    Q(k, "Did I spend more on shopping in June or October?", C(MZ_, CAT("shopping"), [6, 10]), MZ_,
      "Monzo category Shopping, Jun vs Oct 2026.")
    Q(k, "Compare the bills apart from rent in June and October", C(JT_, HOUSE_BILLS_NO_RENT, [6, 10]), JT_,
      "Joint account council tax + Octopus + Thames Water + Virgin Media + TV licence, Jun vs Oct 2026.")
    Q(k, "Did the Spotify charge change between August and September?", C(MZ_, MER("Spotify"), [8, 9]), MZ_,
      "Monzo Spotify payments, Aug vs Sep 2026.")
    Q(k, "Was my salary higher in July or August?", C(MZ_, SAL, [7, 8], fn=inflow), MZ_,
      "Monzo Northwind Analytics credits, Jul vs Aug 2026.")
    Q(k, "How does the savings interest in June compare with October?",
      C(SV_, TAG("interest"), [6, 10], fn=inflow), SV_, "Saver INT credits, Jun vs Oct 2026.")
    Q(k, "Did we spend more on takeaways in the summer or in September and October?",
      cmp({"Summer (June-August 2026)": spend(BOTH, SUMMER, TAKEAWAY),
           "September-October 2026": spend(BOTH, (dt.date(2026, 9, 1), END), TAKEAWAY)}), BOTH,
      "Summer = Jun-Aug 2026. Deliveroo, Just Eat, Uber Eats on Monzo (refund netted) + joint account.")
    Q(k, "compare my personal care spending in july and august", C(MZ_, CAT("personal_care"), [7, 8]), MZ_,
      "Monzo category 'Personal care' (PureGym, Boots, Ruffians), Jul vs Aug 2026.")
    Q(k, "Did I put more into savings in July or August?", C(SV_, TAG("from_monzo"), [7, 8], fn=inflow), SV_,
      "Saver credits from Monzo (interest excluded), Jul vs Aug 2026.")
    Q(k, "Did I spend more at Tesco in July or August?", C(MZ_, MER("Tesco"), [7, 8]), MZ_,
      "Monzo Tesco + Tesco Express, Jul vs Aug 2026.")

    # ------------------------------------------------------------ multi
    k = "multi"
    Q(k, "How much have I spent at Tesco and at Sainsbury's?",
      amts({"Tesco": spend(MZ_, ALL, MER("Tesco")), "Sainsbury's": spend(MZ_, ALL, MER("Sainsbury's"))}), MZ_,
      "Monzo, Jun-Oct 2026; Tesco includes Tesco Express.")
    Q(k, "What did Netflix and Spotify cost me in September?",
      amts({"Netflix": spend(MZ_, M(9), MER("Netflix")), "Spotify": spend(MZ_, M(9), MER("Spotify"))}), MZ_,
      "Monzo payments in Sep 2026.")
    Q(k, "How much have I spent on Deliveroo, Just Eat and Uber Eats?",
      amts({n: spend(MZ_, ALL, MER(n)) for n in ("Deliveroo", "Just Eat", "Uber Eats")}), MZ_,
      "Monzo Jun-Oct 2026, Deliveroo refund netted.")
    Q(k, "break down our october bills: energy, water, broadband",
      amts({"Octopus Energy": spend(JT_, M(10), MER("Octopus Energy")),
            "Thames Water": spend(JT_, M(10), MER("Thames Water")),
            "Virgin Media": spend(JT_, M(10), MER("Virgin Media"))}), JT_, "Joint account Direct Debits, Oct 2026.")
    Q(k, "How much did I spend on groceries and on eating out in August?",
      amts({"groceries": spend(MZ_, M(8), GROCERIES), "eating out": spend(MZ_, M(8), CAT("eating_out"))}), MZ_,
      "Monzo categories Groceries and 'Eating out', Aug 2026, refund netted.")
    Q(k, "How much did we spend at each supermarket on the joint account in September?",
      amts({n: spend(JT_, M(9), MER(n)) for n in ("Tesco", "Sainsbury's", "Waitrose", "Lidl", "Ocado")}), JT_,
      "Joint account supermarket lines dated Sep 2026.")
    Q(k, "What did I spend at Odeon, Vue and Everyman?",
      amts({n: spend(MZ_, ALL, MER(n)) for n in ("Odeon", "Vue", "Everyman")}), MZ_, "Monzo, Jun-Oct 2026.")
    Q(k, "coffee vs takeaways in september - how much on each?",
      amts({"coffee": spend(MZ_, M(9), COFFEE), "takeaways": spend(MZ_, M(9), TAKEAWAY)}), MZ_,
      "Monzo, Sep 2026. Coffee = Pret, Caffè Nero, Monmouth; takeaways = Deliveroo, Just Eat, Uber Eats.")
    Q(k, "How much have we paid in rent and in council tax since June?",
      amts({"rent": spend(JT_, ALL, TAG("rent")), "council tax": spend(JT_, ALL, TAG("council_tax"))}), JT_,
      "Joint account standing order to Harbour Lettings and Lambeth council tax Direct Debits, Jun-Oct 2026.")
    Q(k, "How much went on transport and on entertainment in July?",
      amts({"transport": spend(MZ_, M(7), CAT("transport")),
            "entertainment": spend(MZ_, M(7), CAT("entertainment"))}), MZ_,
      "Monzo categories Transport and Entertainment, Jul 2026.")
    Q(k, "What have Netflix, Spotify, Disney+ and iCloud each cost me since June?",
      amts({"Netflix": spend(MZ_, ALL, MER("Netflix")), "Spotify": spend(MZ_, ALL, MER("Spotify")),
            "Disney+": spend(MZ_, ALL, MER("Disney+")), "iCloud": spend(MZ_, ALL, MER("Apple iCloud"))}), MZ_,
      "Monzo, Jun-Oct 2026. iCloud = APPLE.COM/BILL (£2.99, noted 'iCloud 200GB').")
    Q(k, "pret or caffe nero - how much at each?",
      amts({"Pret A Manger": spend(MZ_, ALL, MER("Pret A Manger")),
            "Caffè Nero": spend(MZ_, ALL, MER("Caffè Nero"))}), MZ_, "Monzo, Jun-Oct 2026 (Pret incl. Leeds).")
    Q(k, "What did the gym cost on each account in October?",
      amts({"monzo": spend(MZ_, M(10), MER("PureGym")), "joint": spend(JT_, M(10), MER("PureGym"))}), BOTH,
      "PureGym Direct Debit on Monzo and PureGym card payment on the joint account, Oct 2026.")
    Q(k, "How much did I spend at Boots and at the barber's?",
      amts({"Boots": spend(MZ_, ALL, MER("Boots")), "Ruffians": spend(MZ_, ALL, MER("Ruffians"))}), MZ_,
      "Monzo, Jun-Oct 2026.")
    Q(k, "How much have we paid Thames Water and Octopus Energy?",
      amts({"Thames Water": spend(JT_, ALL, MER("Thames Water")),
            "Octopus Energy": spend(JT_, ALL, MER("Octopus Energy"))}), JT_, "Joint account, Jun-Oct 2026.")
    Q(k, "In Munich, how much went on restaurants and beer halls and how much on train and tram tickets?",
      amts({"restaurants and beer halls": spend(MZ_, ALL, AND(MUNICH, TAG("restaurant", "oktoberfest"))),
            "tickets": spend(MZ_, ALL, AND(MUNICH, TAG("munich_transport")))}), MZ_,
      "Monzo Munich, GBP. Restaurants and beer halls = Augustiner, Hofbräuhaus, Der Pschorr, Paulaner, "
      "Schottenhamel, Airbräu; tickets = the three MVG ticket machine payments. Uber to Heathrow (London) excluded.")

    # ------------------------------------------------------------ count
    k = "count"
    Q(k, "How many times did I go to the cinema?", cnt(count_out(MZ_, ALL, CINEMA)), MZ_,
      "Monzo payments to Odeon, Vue, Everyman, Jun-Oct 2026 (one payment = one visit).")
    Q(k, "how many times did we go to the cinema, counting both accounts",
      cnt(count_out(BOTH, ALL, CINEMA)), BOTH, "Monzo cinema payments + joint account EVERYMAN line.")
    Q(k, "How many takeaways did I order in September?", cnt(count_out(MZ_, M(9), TAKEAWAY)), MZ_,
      "Monzo Deliveroo/Just Eat/Uber Eats payments, Sep 2026.")
    Q(k, "How many times did I buy coffee in August?", cnt(count_out(MZ_, M(8), COFFEE)), MZ_,
      "Monzo Pret/Caffè Nero/Monmouth payments, Aug 2026.")
    Q(k, "How many times did I shop at Lidl?", cnt(count_out(MZ_, ALL, MER("Lidl"))), MZ_,
      "Monzo Lidl payments, Jun-Oct 2026.")
    Q(k, "How many times did we go to Tesco on the joint account in October?",
      cnt(count_out(JT_, M(10), MER("Tesco"))), JT_, "Joint account TESCO lines dated Oct 2026.")
    Q(k, "How many card payments did I make in Munich, not counting the cash machine?",
      cnt(count_out(MZ_, ALL, AND(MUNICH, NOT(CAT("cash"))))), MZ_, "Monzo Munich card payments excluding the ATM.")
    Q(k, "how many uber rides did i take", cnt(count_out(MZ_, ALL, MER("Uber"))), MZ_,
      "Monzo UBER *TRIP payments incl. Leeds; Uber Eats excluded.")
    Q(k, "How many direct debits go out of the joint account each month?",
      cnt(count_out(JT_, M(10), lambda t: t.desc.startswith("DIRECT DEBIT"))), JT_,
      "DIRECT DEBIT lines per month: council tax, Octopus, Thames Water, Virgin Media, TV licence "
      "(rent is a standing order).")
    Q(k, "How many refunds did I get?", cnt(len(txs(MZ_, ALL, TAG("refund")))), MZ_,
      "Monzo refund credits: ASOS, Amazon, Deliveroo, Trainline.")
    Q(k, "how many times did i use a cash machine", cnt(count_out(MZ_, ALL, CAT("cash"))), MZ_,
      "Monzo Cash category: three UK withdrawals + one in Munich.")
    Q(k, "How many payments did I make into the savings account?", cnt(len(txs(SV_, ALL, TAG("from_monzo")))), SV_,
      "Saver credits from Monzo (interest not counted).")
    Q(k, "How many times did we order Deliveroo on the joint account?",
      cnt(count_out(JT_, ALL, MER("Deliveroo"))), JT_, "Joint account CARD PAYMENT TO DELIVEROO lines.")
    Q(k, "how many times did i go to boots", cnt(count_out(MZ_, ALL, MER("Boots"))), MZ_, "Monzo Boots payments.")
    Q(k, "How many grocery shops did we do in August on the joint account?",
      cnt(count_out(JT_, M(8), GROCERIES)), JT_, "Joint account supermarket lines (incl. Ocado) dated Aug 2026.")
    Q(k, "How many TfL charges did I have in June?", cnt(count_out(MZ_, M(6), MER("TfL"))), MZ_,
      "Monzo TFL TRAVEL CH lines, Jun 2026.")

    # ------------------------------------------------------------ average
    k = "average"
    Q(k, "What's my average shop at Lidl?", avg([-t.amount for t in outs(MZ_, ALL, MER("Lidl"))]), MZ_,
      "Mean of the Monzo Lidl payments, rounded to the penny.")
    Q(k, "how much does a coffee cost me on average", avg([-t.amount for t in outs(MZ_, ALL, COFFEE)]), MZ_,
      "Mean of Monzo coffee-shop payments (Pret, Caffè Nero, Monmouth), Jun-Oct 2026.")
    Q(k, "What's the average takeaway order?", avg([-t.amount for t in outs(MZ_, ALL, TAKEAWAY)]), MZ_,
      "Mean of Monzo takeaway orders (Deliveroo, Just Eat, Uber Eats); the refund line is not an order.")
    Q(k, "On average how much do I spend on food shopping a month?",
      avg([spend(MZ_, M(m), GROCERIES) for m in MONTHS]), MZ_, "Monzo Groceries total / 5 months (Jun-Oct 2026).")
    Q(k, "What do we spend on eating out per month on the joint account, on average?",
      avg([spend(JT_, M(m), CAT("eating_out")) for m in MONTHS]), JT_,
      "Joint restaurants + takeaways, monthly totals Jun-Oct averaged over 5 months.")
    Q(k, "What's our average supermarket shop on the joint account?",
      avg([-t.amount for t in outs(JT_, ALL, GROCERIES)]), JT_,
      "Mean of joint account supermarket payments incl. Ocado, Jun-Oct 2026.")
    Q(k, "whats the avrage tfl charge", avg([-t.amount for t in outs(MZ_, ALL, MER("TfL"))]), MZ_,
      "Mean of Monzo TFL TRAVEL CH charges.")
    Q(k, "How much does a trip to the cinema cost me on average?",
      avg([-t.amount for t in outs(MZ_, ALL, CINEMA)]), MZ_, "Mean of Monzo cinema payments (per payment).")
    Q(k, "What's my average monthly salary since June?", avg([inflow(MZ_, M(m), SAL) for m in MONTHS]), MZ_,
      "Mean of the five Northwind Analytics credits.")
    Q(k, "What did I spend per day on average in Munich?",
      avg([spend(MZ_, (d, d), MUNICH) for d in [MUNICH_FROM + dt.timedelta(days=i) for i in range(6)]]), MZ_,
      "Monzo Munich spending incl. the cash withdrawal, GBP, over the 6 days 14-19 Sep 2026.")
    Q(k, "Average monthly interest on my savings?", avg([inflow(SV_, M(m), TAG("interest")) for m in MONTHS]), SV_,
      "Mean of the five monthly interest credits.")

    # ------------------------------------------------------------ max / biggest
    k = "max"
    b = biggest(outs(MZ_, M(9), CARD_PURCHASE))
    Q(k, "What was my biggest purchase last month?", name(b.merchant), MZ_,
      f"Largest Monzo card purchase in Sep 2026 (ATM withdrawals not purchases): {b.merchant}, "
      f"{money(-b.amount)} GBP ({money(-b.local_amount)} {b.local_ccy}).")
    b = biggest(outs(JT_, ALL, GROCERIES))
    Q(k, "What was our biggest single grocery shop on the joint account?", amt(-b.amount), JT_,
      f"Largest joint supermarket payment: {b.desc} on {b.date:%d/%m/%Y}.")
    b = biggest(outs(MZ_, ALL, TAKEAWAY))
    Q(k, "what's the most i've spent on one takeaway", amt(-b.amount), MZ_,
      f"Largest Monzo takeaway order: {b.merchant} on {b.date:%d/%m/%Y}.")
    mo = argmax({MONTH_NAME[m]: spend(MZ_, M(m), GROCERIES) for m in MONTHS})
    assert mo == argmax({MONTH_NAME[m]: spend(MZ_, M(m), lambda t: t.cat == "groceries" or "supermarket" in t.tags)
                         for m in MONTHS})     # same answer if REWE in Munich is counted as food shopping
    Q(k, "Which month did I spend the most on food shopping?", name(mo), MZ_,
      "Monzo Groceries by month: " +
      ", ".join(f"{MONTH_NAME[m]} {money(spend(MZ_, M(m), GROCERIES))}" for m in MONTHS) +
      " (same winner if the REWE shop in Munich is added to September).")
    sm = {n: spend(MZ_, ALL, MER(n)) for n in ("Tesco", "Sainsbury's", "Lidl", "Waitrose")}
    Q(k, "Which supermarket do I spend the most at?", name(argmax(sm)), MZ_,
      "Monzo totals: " + ", ".join(f"{n} {money(v)}" for n, v in sm.items()) + ".")
    sj = {n: spend(JT_, ALL, MER(n)) for n in ("Tesco", "Sainsbury's", "Lidl", "Waitrose", "Ocado")}
    Q(k, "where do we spend the most on groceries on the joint account", name(argmax(sj)), JT_,
      "Joint totals: " + ", ".join(f"{n} {money(v)}" for n, v in sj.items()) + ".")
    b = biggest(outs(MZ_, ALL, AND(MUNICH, TAG("restaurant"))))
    Q(k, "What was the most expensive meal in Munich?", name(b.merchant), MZ_,
      f"Largest Monzo Munich restaurant payment: {b.merchant}, {money(-b.amount)} GBP ({money(-b.local_amount)} EUR).")
    b = biggest(outs(JT_, ALL, NOT(TAG("rent"))))
    Q(k, "What's the biggest payment out of the joint account apart from the rent?", amt(-b.amount), JT_,
      f"Largest joint debit other than rent: {b.desc}.")
    cats = {MONZO_CAT_DISPLAY[c]: spend(MZ_, M(8), CAT(c)) for c in MONZO_CAT_DISPLAY
            if c not in ("income", "transfers", "savings")}
    Q(k, "Which category did I spend the most on in August?", name(argmax(cats)), MZ_,
      "Monzo categories in Aug 2026, Income/Transfers/Savings excluded: " +
      ", ".join(f"{c} {money(v)}" for c, v in cats.items() if v) + ".")
    b = biggest(outs(MZ_, ALL, MER("Uber")))
    Q(k, "What was my most expensive Uber?", amt(-b.amount), MZ_, f"Monzo Uber ride on {b.date:%d/%m/%Y}.")
    mo = argmax({MONTH_NAME[m]: spend(JT_, M(m), GROCERIES) for m in MONTHS})
    Q(k, "Which month did we spend most on food shopping on the joint account?", name(mo), JT_,
      "Joint supermarket lines incl. Ocado by month: " +
      ", ".join(f"{MONTH_NAME[m]} {money(spend(JT_, M(m), GROCERIES))}" for m in MONTHS) + ".")

    # ------------------------------------------------------------ balance
    k = "balance"
    for acct, qtext in [("savings", "What's my savings balance?"), ("joint", "how much is in the joint account"),
                        ("monzo", "What's my Monzo balance?")]:
        note = {"savings": "OFX LEDGERBAL BALAMT as of 31 Oct 2026.",
                "joint": "Balance column of the newest line (30 Oct 2026) of the joint account export.",
                "monzo": "Monzo main balance: the £1,884.67 opening balance from accounts.md plus every "
                         "Monzo Amount (pot transfers included, so pots are not in this figure)."}[acct]
        Q(k, qtext, bal(balance_at(acct, END), acct, END), [acct], note)
    for acct, d, qtext, note in [
        ("savings", dt.date(2026, 8, 31), "How much did I have in savings at the end of August?",
         "LEDGERBAL minus all later transactions; includes the August interest credited 31 Aug."),
        ("joint", dt.date(2026, 9, 30), "What was the joint balance on 30 September?",
         "Balance column of the last line dated on or before 30/09/2026."),
        ("joint", dt.date(2026, 6, 30), "what was the joint account balance at the end of june",
         "Balance column of the last line dated in June 2026."),
        ("monzo", dt.date(2026, 7, 31), "What was my Monzo balance at the end of July?",
         "Opening balance from accounts.md plus all Monzo amounts up to 31 Jul 2026 (main balance, pots excluded)."),
        ("savings", dt.date(2026, 5, 31), "What was in the savings account at the start of June?",
         "LEDGERBAL minus every transaction in the file = balance before 1 Jun 2026."),
        ("joint", dt.date(2026, 9, 13), "What was our joint balance just before we went to Munich?",
         "Balance after the last joint line dated before 14 Sep 2026."),
        ("savings", dt.date(2026, 10, 15), "What was the savings balance on 15 October?",
         "LEDGERBAL minus transactions after 15 Oct 2026."),
    ]:
        Q(k, qtext, bal(balance_at(acct, d), acct, d), [acct], note)
    Q(k, "What's in the Holiday pot now?", bal(pot_balance("Holiday", END), "monzo:Holiday pot", END), MZ_,
      "Pots empty on 1 Jun (accounts.md); 700 moved in, 600 moved back on 11 Sep.")
    total_pots = pot_balance("Holiday", END) + pot_balance("Christmas", END)
    Q(k, "How much is in my pots?", bal(total_pots, "monzo:pots", END), MZ_,
      "Holiday pot + Christmas pot from the Pot transfer lines (both empty on 1 Jun).")
    Q(k, "How much do I have in Monzo including the pots?",
      bal(balance_at("monzo", END) + total_pots, "monzo", END), MZ_, "Monzo main balance + both pots, 31 Oct 2026.")
    Q(k, "how much have i got altogether across all three accounts",
      bal(balance_at("monzo", END) + total_pots + balance_at("joint", END) + balance_at("savings", END), "all", END),
      ["monzo", "joint", "savings"],
      "Monzo main balance + Monzo pots + joint account balance + saver LEDGERBAL, 31 Oct 2026.")
    Q(k, "What's the joint balance right now?", bal(balance_at("joint", dt.date(2026, 8, 15)), "joint",
                                                    dt.date(2026, 8, 15)), JT_,
      "as_of 15 Aug 2026: balance after the last joint line dated on or before 15/08/2026.",
      as_of="2026-08-15")
    Q(k, "How much has my savings account grown since June?",
      amt(balance_at("savings", END) - balance_at("savings", dt.date(2026, 5, 31))), SV_,
      "Saver balance 31 Oct minus balance before 1 Jun (deposits - withdrawals + interest).")

    # ------------------------------------------------------------ recurring
    k = "recurring"
    Q(k, "what does the gym cost me", amt(spend(MZ_, M(10), MER("PureGym"))), MZ_,
      "PureGym Direct Debit on Monzo, the same each month (per month).")
    subs_now = spend(MZ_, M(10), TAG("subscription"))
    Q(k, "What do I pay each month for subscriptions like streaming and iCloud?", amt(subs_now), MZ_,
      "Per month as of Oct 2026: Netflix 12.99 + Spotify 12.99 + Apple/iCloud 2.99. Disney+ stopped after "
      "August. Gym and phone are not counted.")
    Q(k, "hows much is netflix", amt(spend(MZ_, M(10), MER("Netflix"))), MZ_, "Monthly Netflix charge on Monzo.")
    Q(k, "how much is spotify a month now", amt(spend(MZ_, M(10), MER("Spotify"))), MZ_,
      "Current monthly Spotify charge (went up from 11.99 in September).")
    Q(k, "What was Disney+ costing me a month before I cancelled?", amt(spend(MZ_, M(8), MER("Disney+"))), MZ_,
      "Monthly Disney+ charge Jun-Aug 2026.")
    Q(k, "How much is our rent?", amt(spend(JT_, M(10), TAG("rent"))), JT_,
      "Monthly standing order to Harbour Lettings.")
    Q(k, "How much is council tax a month?", amt(spend(JT_, M(10), TAG("council_tax"))), JT_,
      "Monthly Lambeth council tax Direct Debit.")
    Q(k, "What's our monthly energy bill now?", amt(spend(JT_, M(10), MER("Octopus Energy"))), JT_,
      "Octopus Energy Direct Debit in Oct 2026 (up from 96.00).")
    Q(k, "What are our monthly household bills apart from the rent?", amt(spend(JT_, M(10), HOUSE_BILLS_NO_RENT)),
      JT_, "Per month as of Oct 2026: council tax + Octopus + Thames Water + Virgin Media + TV licence. "
           "The £3 account fee is not a household bill.")
    Q(k, "How much is my phone bill?", amt(spend(MZ_, M(10), MER("EE"))), MZ_, "Monthly EE Direct Debit.")
    Q(k, "what do we pay for broadband", amt(spend(JT_, M(10), MER("Virgin Media"))), JT_,
      "Monthly Virgin Media Direct Debit.")
    Q(k, "How much is the TV licence a month?", amt(spend(JT_, M(10), MER("TV Licensing"))), JT_,
      "Monthly DIRECT DEBIT TV LICENCE MBP.")
    Q(k, "How much do I put into savings every month after payday?", amt(SAVER_MONTHLY), ["monzo", "savings"],
      "The regular transfer to the saver the working day after each salary; one-off transfers excluded.")
    Q(k, "How much do I send to the joint account each month?", amt(spend(MZ_, M(10), TAG("to_joint"))), MZ_,
      "Monthly Monzo transfer to MORGAN A & PATEL S.")
    Q(k, "What does the gym cost us altogether each month?", amt(spend(BOTH, M(10), MER("PureGym"))), BOTH,
      "PureGym on Monzo (24.99) + PureGym on the joint card (29.99), per month.")
    Q(k, "How much is my monthly donation?", amt(spend(MZ_, M(10), MER("Cancer Research UK"))), MZ_,
      "Monthly Cancer Research UK Direct Debit.")
    Q(k, "How many subscriptions am I paying for right now?", cnt(count_out(MZ_, M(10), TAG("subscription"))), MZ_,
      "Recurring subscriptions charged in Oct 2026: Netflix, Spotify, Apple/iCloud (Disney+ cancelled).")
    Q(k, "how much do i pay apple every month", amt(spend(MZ_, M(10), MER("Apple iCloud"))), MZ_,
      "Monthly APPLE.COM/BILL charge (iCloud).")

    # ------------------------------------------------------------ relative periods
    k = "relative"
    Q(k, "How much did I spend on groceries last month?", amt(spend(MZ_, M(7), GROCERIES)), MZ_,
      "as_of 5 Aug 2026 -> last month = July 2026. Monzo Groceries.", as_of="2026-08-05")
    Q(k, "how much have i spent on takeaways this month", amt(spend(MZ_, M(10), TAKEAWAY)), MZ_,
      "as_of 31 Oct 2026 -> October 2026. Monzo Deliveroo/Just Eat/Uber Eats.")
    Q(k, "What have I spent eating out this month so far?",
      amt(spend(MZ_, (dt.date(2026, 10, 1), dt.date(2026, 10, 15)), CAT("eating_out"))), MZ_,
      "as_of 15 Oct 2026 -> 1-15 Oct 2026. Monzo category 'Eating out'.", as_of="2026-10-15")
    Q(k, "How much have I spent on coffee this year?", amt(spend(MZ_, ALL, COFFEE)), MZ_,
      "as_of 31 Oct 2026 -> 2026 so far; the statements start on 1 Jun 2026, so Jun-Oct. Monzo coffee shops.")
    Q(k, "How much did I spend on Uber rides in the summer?", amt(spend(MZ_, SUMMER, MER("Uber"))), MZ_,
      "Summer = Jun-Aug 2026. Monzo Uber rides (not Uber Eats).")
    Q(k, "how much did we spend on food shopping over the summer on the joint account",
      amt(spend(JT_, SUMMER, GROCERIES)), JT_, "Summer = Jun-Aug 2026. Joint supermarket lines incl. Ocado.")
    Q(k, "What did I spend on transport last month?", amt(spend(MZ_, M(7), CAT("transport"))), MZ_,
      "as_of 10 Aug 2026 -> July 2026. Monzo category Transport.", as_of="2026-08-10")
    Q(k, "How much have I spent at Tesco in the last three months?",
      amt(same(spend(MZ_, (dt.date(2026, 8, 1), END), MER("Tesco")),
               spend(MZ_, (dt.date(2026, 7, 31), END), MER("Tesco")))), MZ_,
      "as_of 31 Oct 2026 -> Aug-Oct 2026 (same total whether counted from 31 Jul or 1 Aug). Monzo Tesco.")
    Q(k, "What did I spend on eating out in the past week?",
      amt(same(spend(MZ_, (dt.date(2026, 10, 25), END), CAT("eating_out")),
               spend(MZ_, (dt.date(2026, 10, 24), END), CAT("eating_out")))), MZ_,
      "as_of 31 Oct 2026 -> 25-31 Oct (same as 24-31 Oct). Monzo category 'Eating out'.")
    Q(k, "What did I spend on the cinema last quarter?",
      amt(spend(MZ_, (dt.date(2026, 7, 1), dt.date(2026, 9, 30)), CINEMA)), MZ_,
      "as_of 31 Oct 2026 -> Q3 = Jul-Sep 2026. Monzo Odeon/Vue/Everyman.")
    Q(k, "how much did the joint account spend on groceries last month", amt(spend(JT_, M(8), GROCERIES)), JT_,
      "as_of 3 Sep 2026 -> August 2026. Joint supermarket lines incl. Ocado.", as_of="2026-09-03")
    Q(k, "How much have I put into savings this month?", amt(inflow(SV_, M(10), TAG("from_monzo"))), SV_,
      "as_of 31 Oct 2026 -> October. Saver credits from Monzo, interest excluded.")
    yday = dt.date(2026, 10, 24)
    Q(k, "What did I spend yesterday?", amt(spend(MZ_, (yday, yday), SPENDING)), MZ_,
      "as_of 25 Oct 2026 -> 24 Oct 2026. All Monzo spending that day (transfers/savings excluded): " +
      ", ".join(f"{t.merchant} {money(-t.amount)}" for t in txs(MZ_, (yday, yday), SPENDING)) + ".",
      as_of="2026-10-25")
    Q(k, "How much have I spent on takeaways since the start of September?",
      amt(spend(MZ_, (dt.date(2026, 9, 1), END), TAKEAWAY)), MZ_, "1 Sep-31 Oct 2026, Monzo takeaways.")
    Q(k, "how much did i spend on coffee last month", amt(spend(MZ_, M(6), COFFEE)), MZ_,
      "as_of 2 Jul 2026 -> June 2026. Monzo coffee shops.", as_of="2026-07-02")
    Q(k, "How much income have I had this year so far?", amt(inflow(MZ_, ALL, CAT("income"))), MZ_,
      "as_of 31 Oct 2026; statements start 1 Jun 2026, so Jun-Oct. Monzo category Income.")
    Q(k, "How much did I spend on food shopping in the last 30 days?",
      amt(same(spend(MZ_, (dt.date(2026, 10, 2), END), GROCERIES),
               spend(MZ_, (dt.date(2026, 10, 1), END), GROCERIES))), MZ_,
      "as_of 31 Oct 2026 -> 2-31 Oct (same as all of October). Monzo Groceries.")
    Q(k, "What did we pay in bills last month, rent included?", amt(spend(JT_, M(9), CAT("bills"))), JT_,
      "as_of 5 Oct 2026 -> September 2026. Joint rent, council tax, energy, water, broadband, TV licence.",
      as_of="2026-10-05")
    Q(k, "How much did we spend on takeaways over the summer, both accounts?", amt(spend(BOTH, SUMMER, TAKEAWAY)),
      BOTH, "Summer = Jun-Aug 2026. Monzo (refund netted) + joint takeaways.")
    Q(k, "How much have I spent at Pret this month?", amt(spend(MZ_, M(9), MER("Pret A Manger"))), MZ_,
      "as_of 30 Sep 2026 -> September 2026. Monzo Pret A Manger.", as_of="2026-09-30")
    Q(k, "how much interest did my savings earn last month", amt(inflow(SV_, M(9), TAG("interest"))), SV_,
      "as_of 31 Oct 2026 -> September 2026 interest (credited 30 Sep).")
    Q(k, "How much did I spend on Uber rides in the last two months?",
      amt(spend(MZ_, (dt.date(2026, 9, 1), END), MER("Uber"))), MZ_,
      "as_of 31 Oct 2026 -> Sep-Oct 2026. Monzo Uber rides (not Uber Eats), incl. the ride to Heathrow.")

    # ------------------------------------------------------------ mixed with fees.md
    k = "mixed"
    hotel_fee = spend(JT_, ALL, lambda t: t.desc == "NON-STERLING TRANSACTION FEE" and t.tdate == dt.date(2026, 9, 19))
    Q(k, "What was the foreign fee on the Munich hotel, and what percentage does Calder charge?",
      mixed(hotel_fee, f"{NON_STERLING_PCT}%"), JT_,
      "NON-STERLING TRANSACTION FEE line posted with the hotel on 21/09/2026; rate from fees.md.")
    Q(k, "How much did we pay in non-sterling transaction fees in Munich, and what's the rate?",
      mixed(spend(JT_, ALL, lambda t: t.desc == "NON-STERLING TRANSACTION FEE"), f"{NON_STERLING_PCT}%"), JT_,
      "Sum of the three NON-STERLING TRANSACTION FEE lines (cash fee not included); rate from fees.md.")
    Q(k, "How much cash did Sam take out in Munich in pounds, and what's the flat fee for using a cash machine abroad?",
      mixed(spend(JT_, ALL, AND(MUNICH, CAT("cash"))), f"£{NON_STERLING_CASH_FEE}"), JT_,
      "Joint CASH WITHDRAWAL SSKM line in GBP (fees not included); non-sterling cash fee from fees.md.")
    Q(k, "How much did I spend on my Monzo card in Munich in pounds, and what foreign fee would Calder have charged as a percentage?",
      mixed(spend(MZ_, ALL, MUNICH), f"{NON_STERLING_PCT}%"), MZ_,
      "Monzo Munich transactions incl. the ATM withdrawal, GBP; percentage from fees.md.")
    Q(k, "how much have we paid in monthly account fees since june and what's the fee per month",
      mixed(spend(JT_, ALL, TAG("monthly_fee")), f"£{MONTHLY_FEE}"), JT_,
      "Five MONTHLY ACCOUNT FEE lines; monthly fee from fees.md.")
    low = min(balance_at("joint", d) for d in (START + dt.timedelta(days=i) for i in range((END - START).days + 1)))
    run, low_line = JOINT_OPENING, JOINT_OPENING
    for t in sorted(acct_txns("joint"), key=sort_key):
        run += t.amount
        low_line = min(low_line, run)
    assert low == low_line
    Q(k, "What's the lowest our joint balance got, and what interest would we pay if we went overdrawn?",
      mixed(low, OVERDRAFT_EAR), JT_,
      "Lowest value in the joint Balance column; arranged overdraft rate (EAR) from fees.md.")
    Q(k, "How much interest has the saver paid, and what's its interest rate?",
      mixed(inflow(SV_, ALL, TAG("interest")), SAVER_AER), SV_,
      "Sum of the five INT credits; AER from fees.md.")
    Q(k, "What did the Munich cash withdrawal cost us in fees, and how much of that is the flat cash-machine charge?",
      mixed(spend(JT_, ALL, lambda t: "fx_fee" in t.tags and t.tdate == dt.date(2026, 9, 16)),
            f"£{NON_STERLING_CASH_FEE}"), JT_,
      "2.95% NON-STERLING TRANSACTION FEE + £1.50 NON-STERLING CASH FEE posted 17/09/2026.")
    Q(k, "We got charged for a new card - how much was it and is that the normal price?",
      mixed(spend(JT_, ALL, TAG("card_fee")), f"£{REPLACEMENT_CARD_FEE}"), JT_,
      "REPLACEMENT CARD FEE line 06/08/2026; replacement card charge from fees.md.")
    Q(k, "How much did the Dallmayr purchase cost including the foreign fee, and what's the fee rate?",
      mixed(spend(JT_, ALL, lambda t: t.tdate == dt.date(2026, 9, 17) and t.city == "Munich"), f"{NON_STERLING_PCT}%"),
      JT_, "Joint DALLMAYR line + its NON-STERLING TRANSACTION FEE line; rate from fees.md.")

    # ------------------------------------------------------------ text
    k = "text"
    Q(k, "where did I buy my train tickets to Leeds?", text("Trainline"), MZ_,
      "Monzo Trainline payment 8 Jul 2026, note 'Kings Cross to Leeds return'.")
    Q(k, "What was the hotel called in Munich?", text("Hotel am Viktualienmarkt", "Viktualienmarkt"), JT_,
      "Joint line HOTEL AM VIKTUALIENMARKT MUENCHEN DE.")
    Q(k, "Who's our energy supplier?", text("Octopus Energy", "Octopus"), JT_, "DIRECT DEBIT OCTOPUS ENERGY.")
    Q(k, "who do we pay the rent to", text("Harbour Lettings"), JT_, "STANDING ORDER HARBOUR LETTINGS ...")
    Q(k, "Which mobile network am I with?", text("EE"), MZ_, "Monzo Direct Debit to EE (EE LIMITED).")
    Q(k, "Which trip was the Trainline refund for?", text("Brighton"), MZ_,
      "Monzo notes on the Trainline lines: 'Brighton day trip' / 'Brighton cancelled'.")
    Q(k, "Who pays my salary?", text("Northwind Analytics", "Northwind"), MZ_, "Bacs credits from Northwind Analytics Ltd.")
    Q(k, "what did I buy at john lewis", text("headphones"), MZ_, "Monzo note on the John Lewis payment.")
    Q(k, "Which council do we pay council tax to?", text("Lambeth"), JT_, "DIRECT DEBIT LB LAMBETH COUNCIL TAX.")
    Q(k, "What was the £75 to my mum for?", text("birthday"), MZ_, "Monzo payment to Margaret Morgan, note 'Mum's birthday'.")
    Q(k, "What was the name of the pub I went to in Leeds?", text("Whitelock's", "Whitelocks", "Whitelock"), MZ_,
      "Monzo Whitelock's Ale House, Leeds.")
    Q(k, "Which beer tent did I go to at the Oktoberfest?", text("Schottenhamel"), MZ_,
      "Monzo Schottenhamel Festhalle, 19 Sep 2026, note 'Wiesn!'.")

    # ------------------------------------------------------------ none
    k = "none"
    Q(k, "How much have I spent at Costa?", none_(["costa"]), MZ_, "No Costa Coffee transactions.")
    Q(k, "How much did we spend on petrol?", none_(["shell", "esso", " bp ", "texaco", "petrol", "fuel"]), BOTH,
      "No petrol station transactions on either account.")
    Q(k, "What do I pay for Amazon Prime?", none_(["prime"]), MZ_,
      "There are Amazon purchases but no Amazon Prime subscription charge.")
    Q(k, "how much did i spend at greggs in agust", none_(["greggs"]), MZ_, "No Greggs transactions.")
    Q(k, "How much have we spent at Asda?", none_(["asda"]), BOTH, "No Asda transactions on either account.")
    Q(k, "How much did I spend on Ryanair flights?", none_(["ryanair"]), MZ_, "No Ryanair; the only flights are British Airways.")
    Q(k, "What have I paid for parking?", none_(["parking", "ringgo", "ncp", "paybyphone"]), BOTH, "No parking payments.")
    Q(k, "How much did I spend at Starbucks?", none_(["starbucks"]), MZ_, "No Starbucks transactions.")
    Q(k, "how much do we pay for home insurance", none_(["insurance", "aviva", "direct line", "admiral"]), BOTH,
      "No insurance payments on either account.")
    assert not any(t.desc.endswith("FRA") for t in LEDGER)
    Q(k, "How much did I spend in Paris?", none_(["paris", "france"], ["monzo"]), MZ_,
      "No transactions in Paris / France.")
    assert spend(MZ_, M(10), MER("Disney+")) == 0
    Q(k, "How much did Disney+ charge me in October?", {"type": "none"}, MZ_,
      "Disney+ was last charged on 22 Aug 2026; nothing in October.")
    assert spend(MZ_, M(10), MER("Vue")) == 0
    Q(k, "How much did I spend at Vue in October?", {"type": "none"}, MZ_,
      "Vue only appears in July and August 2026.")


# ================================================================= labelled merchants
# (raw description as it appears on a statement, merchant, Monzo category)
# Styles: Monzo (padded descriptor + country), HSBC/Nationwide/Starling (bare descriptor), Lloyds/Halifax
# ("CD 1234" suffix), Barclays ("ON 03 SEP BCC"/"CPM"), NatWest/RBS (card + date prefix), Santander
# ("CARD PAYMENT TO ..."), Revolut/Curve/PayPal/Square/SumUp/Zettle prefixes, and German, Dutch, French,
# Spanish, Irish and Italian bank wording.
MERCHANTS = [
    # --- from these statements
    ("BOOTS UK 1234 LEEDS", "Boots", "personal_care"),
    ("BOOTS 1123 BRIXTON LONDON", "Boots", "personal_care"),
    ("TESCO STORES 3021 LONDON", "Tesco", "groceries"),
    ("SAINSBURYS S/MKT 0418 LONDON", "Sainsbury's", "groceries"),
    ("WAITROSE 0714 LONDON", "Waitrose", "groceries"),
    ("LIDL GB LONDON", "Lidl", "groceries"),
    ("CARD PAYMENT TO OCADO RETAIL LTD ON 12 AUG", "Ocado", "groceries"),
    ("CARD PAYMENT TO PUREGYM LTD ON 03 SEP", "PureGym", "personal_care"),
    ("CARD PAYMENT TO JUST EAT.CO.UK LTD ON 13 OCT", "Just Eat", "eating_out"),
    ("CARD PAYMENT TO DELIVEROO ON 24 OCT", "Deliveroo", "eating_out"),
    ("DIRECT DEBIT THAMES WATER", "Thames Water", "bills"),
    ("DIRECT DEBIT OCTOPUS ENERGY", "Octopus Energy", "bills"),
    ("DIRECT DEBIT LB LAMBETH COUNCIL TAX", "Lambeth Council", "bills"),
    ("DIRECT DEBIT VIRGIN MEDIA", "Virgin Media", "bills"),
    ("DIRECT DEBIT TV LICENCE MBP", "TV Licensing", "bills"),
    ("STANDING ORDER HARBOUR LETTINGS REF FLAT 3 47 ACRE LN", "Harbour Lettings", "bills"),
    ("HONEST BURGERS BRIXTON LONDON", "Honest Burgers", "eating_out"),
    ("FRANCO MANCA BRIXTON LONDON", "Franco Manca", "eating_out"),
    ("IKEA LTD WEMBLEY", "IKEA", "shopping"),
    ("ARGOS LTD LONDON", "Argos", "shopping"),
    ("ROBERT DYAS BRIXTON LONDON", "Robert Dyas", "shopping"),
    ("BILLS RESTAURANT LEEDS", "Bill's", "eating_out"),
    ("EVERYMAN CINEMAS LONDON", "Everyman", "entertainment"),
    ("CASH WITHDRAWAL NOTEMACHINE ACRE LANE LONDON", "Notemachine", "cash"),
    ("HOTEL AM VIKTUALIENMARKT MUENCHEN DE 745.00 EUR @ 0.8591 ON 19 SEP", "Hotel am Viktualienmarkt", "holidays"),
    ("TESCO STORES 6542      LONDON        GBR", "Tesco", "groceries"),
    ("TESCO EXPRESS 3287     LONDON        GBR", "Tesco", "groceries"),
    ("SAINSBURYS S/MKTS      LONDON        GBR", "Sainsbury's", "groceries"),
    ("PRET A MANGER          LONDON        GBR", "Pret A Manger", "eating_out"),
    ("CAFFE NERO 0312        LONDON        GBR", "Caffè Nero", "eating_out"),
    ("UBER *EATS             help.uber.com NLD", "Uber Eats", "eating_out"),
    ("UBER *TRIP             help.uber.com NLD", "Uber", "transport"),
    ("TFL TRAVEL CH          TFL.GOV.UK/CP GBR", "Transport for London", "transport"),
    ("NETFLIX.COM            AMSTERDAM     NLD", "Netflix", "entertainment"),
    ("SPOTIFY                STOCKHOLM     SWE", "Spotify", "entertainment"),
    ("DISNEY PLUS            LONDON        GBR", "Disney+", "entertainment"),
    ("APPLE.COM/BILL         HOLLYHILL     IRL", "Apple", "bills"),
    ("ODEON CINEMAS          LONDON        GBR", "Odeon", "entertainment"),
    ("HOFBRAEUHAUS MUENCHEN  MUENCHEN      DEU", "Hofbräuhaus München", "eating_out"),
    ("MVG AUTOMAT MARIENPLATZ MUENCHEN     DEU", "MVG", "transport"),
    ("SSKM GA MARIENPLATZ    MUENCHEN      DEU", "Stadtsparkasse München", "cash"),
    ("BRITISH A 1252456613   LONDON        GBR", "British Airways", "holidays"),
    ("JUSTGIVING             LONDON        GBR", "JustGiving", "charity"),
    ("MOONPIG.COM            LONDON        GBR", "Moonpig", "gifts"),
    # --- supermarkets and food shops (other banks)
    ("TESCO STORES 2245 CD 4417", "Tesco", "groceries"),
    ("SAINSBURYS SACAT 0897 CD 4417", "Sainsbury's", "groceries"),
    ("ASDA STORES 4123 ON 14 AUG BCC", "Asda", "groceries"),
    ("ASDA SUPERSTORE 4512 LEEDS", "Asda", "groceries"),
    ("WM MORRISONS STORE 0233 BRADFORD", "Morrisons", "groceries"),
    ("MORRISONS DAILY 1789 CD 9021", "Morrisons", "groceries"),
    ("ALDI 81 772 MANCHESTER GB", "Aldi", "groceries"),
    ("4571 02SEP26 C , ALDI STORES LTD , GLASGOW GB", "Aldi", "groceries"),
    ("CO-OP GROUP 070412 BRISTOL", "Co-op", "groceries"),
    ("M&S SIMPLY FOOD - WATERLOO STATION", "M&S Food", "groceries"),
    ("ICELAND 1234 CARDIFF", "Iceland", "groceries"),
    ("CARD PAYMENT TO ICELAND FOODS LTD,23.40 GBP, RATE 1.00/GBP ON 09-08-2026", "Iceland", "groceries"),
    ("WAITROSE 725 ON 21 JUL BCC", "Waitrose", "groceries"),
    ("AMAZON FRESH LONDON", "Amazon Fresh", "groceries"),
    ("SPAR EDINBURGH HAYMARKET", "Spar", "groceries"),
    ("COOK TRADING LTD FROME", "COOK", "groceries"),
    ("Contactless Payment LIDL GB BIRMINGHAM", "Lidl", "groceries"),
    ("TESCO PFS 3490 READING", "Tesco petrol station", "transport"),
    ("VISA REWE MARKT GMBH MUENCHEN", "REWE", "groceries"),
    ("Kartenzahlung EDEKA CENTER KOELN", "EDEKA", "groceries"),
    ("BEA ALBERT HEIJN 1234 AMSTERDAM", "Albert Heijn", "groceries"),
    ("CB CARREFOUR CITY 12/09 PARIS", "Carrefour", "groceries"),
    ("COMPRA TARJ. MERCADONA VALENCIA", "Mercadona", "groceries"),
    ("POS DUNNES STORES DUBLIN", "Dunnes Stores", "groceries"),
    ("POS ESSELUNGA MILANO", "Esselunga", "groceries"),
    # --- eating out
    ("COSTA COFFEE 43007 MANCHESTER", "Costa Coffee", "eating_out"),
    ("STARBUCKS 1234 CD 7781", "Starbucks", "eating_out"),
    ("GREGGS PLC 1203 NEWCASTLE", "Greggs", "eating_out"),
    ("PRET A MANGER 0221 ON 05 SEP BCC", "Pret A Manger", "eating_out"),
    ("SQ *BREW LAB COFFEE EDINBURGH", "Brew Lab Coffee", "eating_out"),
    ("SUMUP *THE BAGEL SHOP LONDON", "The Bagel Shop", "eating_out"),
    ("ZETTLE_*OTTOLENGHI SPITALFIEL", "Ottolenghi", "eating_out"),
    ("NANDOS 0478 CD 2210", "Nando's", "eating_out"),
    ("WAGAMAMA 0112 LONDON", "Wagamama", "eating_out"),
    ("PIZZA EXPRESS 1187 BATH", "PizzaExpress", "eating_out"),
    ("DISHOOM KINGS CROSS    LONDON        GBR", "Dishoom", "eating_out"),
    ("LEON RESTAURANTS LONDON", "LEON", "eating_out"),
    ("WETHERSPOONS 4410 ON 22 AUG BCC", "Wetherspoons", "eating_out"),
    ("J D WETHERSPOON PLC LIVERPOOL", "Wetherspoons", "eating_out"),
    ("MCDONALDS 1442 CD 9021", "McDonald's", "eating_out"),
    ("KFC - TOOTING", "KFC", "eating_out"),
    ("BURGER KING 21122 LUTON AIRPORT", "Burger King", "eating_out"),
    ("CARD PAYMENT TO DOMINOS PIZZA,18.99 GBP, RATE 1.00/GBP ON 03-10-2026", "Domino's", "eating_out"),
    ("PAYPAL *JUSTEAT 35314369001", "Just Eat", "eating_out"),
    ("DELIVEROO.CO.UK LONDON", "Deliveroo", "eating_out"),
    ("UBER* EATS PENDING", "Uber Eats", "eating_out"),
    ("WHITELOCKS ALE HOUSE   LEEDS         GBR", "Whitelock's Ale House", "eating_out"),
    ("THE CROWN INN CHISWICK", "The Crown Inn", "eating_out"),
    ("YO! SUSHI 0081 BIRMINGHAM", "YO! Sushi", "eating_out"),
    ("CB LE PETIT CAFE 15/07 LYON", "Le Petit Café", "eating_out"),
    # --- transport
    ("TFL TRAVEL CHARGE TFL.GOV.UK/CP", "Transport for London", "transport"),
    ("LUL TICKET MACHINE KINGS CROSS", "Transport for London", "transport"),
    ("TRAINLINE.COM LONDON", "Trainline", "transport"),
    ("LNER 1234 YORK", "LNER", "transport"),
    ("GWR TICKET OFFICE BRISTOL TM", "GWR", "transport"),
    ("AVANTI WEST COAST WEB", "Avanti West Coast", "transport"),
    ("NATIONAL EXPRESS WEB BIRMINGHAM", "National Express", "transport"),
    ("FIRST BUS SOUTHAMPTON", "First Bus", "transport"),
    ("STAGECOACH BUS MOBILE", "Stagecoach", "transport"),
    ("UBER   *TRIP HELP.UBER.COM", "Uber", "transport"),
    ("BOLT.EU/O/2609121534 TALLINN", "Bolt", "transport"),
    ("ADDISON LEE LTD LONDON", "Addison Lee", "transport"),
    ("SHELL TOTTERIDGE 1234 LONDON", "Shell", "transport"),
    ("ESSO TRINITY SERVICE STATION CD 2210", "Esso", "transport"),
    ("BP CONNECT WIMBLEDON ON 11 SEP BCC", "BP", "transport"),
    ("SAINSBURYS PETROL 0897", "Sainsbury's petrol station", "transport"),
    ("RINGGO PARKING 0333 LONDON", "RingGo", "transport"),
    ("NCP LTD MANCHESTER PICCADILLY", "NCP", "transport"),
    ("PAYBYPHONE WESTMINSTER", "PayByPhone", "transport"),
    ("DVLA-AB12CDE", "DVLA", "transport"),
    ("SANTANDER CYCLES LONDON", "Santander Cycles", "transport"),
    ("LIME*RIDE LIME.BIKE", "Lime", "transport"),
    ("DB VERTRIEB GMBH FRANKFURT", "Deutsche Bahn", "transport"),
    ("CB SNCF INTERNET 02/09 PARIS", "SNCF", "transport"),
    ("NS GROEP IZ NS REIZIGERS UTRECHT", "NS", "transport"),
    # --- holidays
    ("RYANAIR 1234567890 DUBLIN", "Ryanair", "holidays"),
    ("EASYJET 000EJU8823 LUTON", "easyJet", "holidays"),
    ("BRITISH AIRWAYS 1252345678901", "British Airways", "holidays"),
    ("JET2.COM LEEDS", "Jet2", "holidays"),
    ("LUFTHANSA 2201234567 FRANKFURT", "Lufthansa", "holidays"),
    ("BOOKING.COM AMSTERDAM", "Booking.com", "holidays"),
    ("AIRBNB * HM2KX9PQ34 LONDON", "Airbnb", "holidays"),
    ("PREMIER INN 44012 EDINBURGH", "Premier Inn", "holidays"),
    ("TRAVELODGE 1123 CD 4417", "Travelodge", "holidays"),
    ("HEATHROW EXPRESS PADDINGTON", "Heathrow Express", "transport"),
    ("EUROSTAR INTERNATIONAL LONDON", "Eurostar", "transport"),
    # --- bills
    ("DIRECT DEBIT BRITISH GAS", "British Gas", "bills"),
    ("EDF ENERGY DDR", "EDF Energy", "bills"),
    ("E.ON NEXT LTD DD", "E.ON Next", "bills"),
    ("OVO ENERGY", "OVO Energy", "bills"),
    ("SEVERN TRENT WATER DDR", "Severn Trent", "bills"),
    ("UNITED UTILITIES WATER", "United Utilities", "bills"),
    ("ANGLIAN WATER SERVICES", "Anglian Water", "bills"),
    ("DIRECT DEBIT BRISTOL CITY COUNCIL", "Bristol City Council", "bills"),
    ("MANCHESTER CITY COUNCIL CTAX", "Manchester City Council", "bills"),
    ("BT GROUP PLC DD", "BT", "bills"),
    ("SKY DIGITAL DD", "Sky", "bills"),
    ("VODAFONE LTD DDR", "Vodafone", "bills"),
    ("O2 UK DD 01234567", "O2", "bills"),
    ("EE LIMITED", "EE", "bills"),
    ("THREE.CO.UK", "Three", "bills"),
    ("GIFFGAFF.COM", "giffgaff", "bills"),
    ("TV LICENCE MBP", "TV Licensing", "bills"),
    ("AVIVA INSURANCE LTD DD", "Aviva", "bills"),
    ("DIRECT LINE INSURANCE PLC", "Direct Line", "bills"),
    ("ADMIRAL INSURANCE DDR", "Admiral", "bills"),
    ("HYPEROPTIC LTD", "Hyperoptic", "bills"),
    ("FOXTONS LTD RENT SO", "Foxtons", "bills"),
    ("GOOGLE *Google One G.CO/HELPPAY#", "Google One", "bills"),
    ("PRLV SEPA ORANGE SA", "Orange", "bills"),
    ("SEPA-Lastschrift Stadtwerke Muenchen GmbH", "Stadtwerke München", "bills"),
    # --- entertainment and subscriptions
    ("NETFLIX.COM 866-579-7172", "Netflix", "entertainment"),
    ("PAYPAL *NETFLIX.COM", "Netflix", "entertainment"),
    ("Spotify P1A2B3C4D5 Stockholm", "Spotify", "entertainment"),
    ("DISNEYPLUS LONDON", "Disney+", "entertainment"),
    ("AMAZON PRIME*2K4RT7H54 AMZN.CO.UK/PM", "Amazon Prime", "entertainment"),
    ("PRIME VIDEO*1A2B3C4D5", "Prime Video", "entertainment"),
    ("GOOGLE *YouTubePremium G.CO/HELPPAY#", "YouTube Premium", "entertainment"),
    ("NOW TV SKY.COM/NOWTV", "NOW", "entertainment"),
    ("AUDIBLE UK*A12BC3D45", "Audible", "entertainment"),
    ("PLAYSTATION NETWORK LONDON", "PlayStation Store", "entertainment"),
    ("STEAMGAMES.COM 4259522985", "Steam", "entertainment"),
    ("VUE BSL LTD FINCHLEY RD", "Vue", "entertainment"),
    ("CINEWORLD 0045 CD 9021", "Cineworld", "entertainment"),
    ("PICTUREHOUSE CENTRAL LONDON", "Picturehouse", "entertainment"),
    ("TICKETMASTER UK LONDON", "Ticketmaster", "entertainment"),
    ("SEE TICKETS NOTTINGHAM", "See Tickets", "entertainment"),
    # --- shopping
    ("AMAZON.CO.UK*RT4KX81Q2 AMAZON.CO.UK", "Amazon", "shopping"),
    ("AMZNMKTPLACE AMAZON.CO.UK", "Amazon", "shopping"),
    ("PAYPAL *EBAY 35314369001", "eBay", "shopping"),
    ("ASOS.COM LTD LONDON", "ASOS", "shopping"),
    ("UNIQLO REGENT ST       LONDON        GBR", "Uniqlo", "shopping"),
    ("PRIMARK 0123 CD 4417", "Primark", "shopping"),
    ("NEXT RETAIL LTD LEICESTER", "Next", "shopping"),
    ("ZARA UK 2231 LONDON", "Zara", "shopping"),
    ("JOHN LEWIS 0203 ON 17 OCT BCC", "John Lewis", "shopping"),
    ("CURRYS 4412 CROYDON", "Currys", "shopping"),
    ("ARGOS LTD CD 2210", "Argos", "shopping"),
    ("B&Q 1234 SUTTON", "B&Q", "shopping"),
    ("SCREWFIX DIRECT YEOVIL", "Screwfix", "shopping"),
    ("WATERSTONES BRIXTON    LONDON        GBR", "Waterstones", "shopping"),
    ("WHSMITH 2231 EUSTON STATION", "WHSmith", "shopping"),
    ("TK MAXX 0412 LEEDS", "TK Maxx", "shopping"),
    ("DUNELM 0221 CD 9021", "Dunelm", "shopping"),
    ("ETSY.COM - SHOP CRAFTS", "Etsy", "shopping"),
    ("DM-DROGERIE MARKT SAGT DANKE", "dm-drogerie markt", "personal_care"),
    # --- personal care and pharmacies
    ("SUPERDRUG 0401 CD 2210", "Superdrug", "personal_care"),
    ("LLOYDS PHARMACY 2231 NORWICH", "Lloydspharmacy", "personal_care"),
    ("BOOTS THE CHEMIST 0921 ON 02 JUL BCC", "Boots", "personal_care"),
    ("WELL PHARMACY 1122 BOLTON", "Well Pharmacy", "personal_care"),
    ("SPECSAVERS OPTICIANS GUILDFORD", "Specsavers", "personal_care"),
    ("PUREGYM LTD", "PureGym", "personal_care"),
    ("THE GYM GROUP PLC DD", "The Gym Group", "personal_care"),
    ("DAVID LLOYD LEISURE DDR", "David Lloyd", "personal_care"),
    ("BETTER GLL CLAPHAM LEISURE", "Better", "personal_care"),
    ("RUFFIANS BARBERS       LONDON        GBR", "Ruffians", "personal_care"),
    ("TONI&GUY 0221 LONDON", "Toni & Guy", "personal_care"),
    ("POS APOTHEKE AM MARIENPLATZ MUENCHEN", "Apotheke am Marienplatz", "personal_care"),
    # --- charity, gifts, family, general
    ("CANCER RESEARCH UK", "Cancer Research UK", "charity"),
    ("BRITISH HEART FOUNDATIO 0412", "British Heart Foundation", "charity"),
    ("DIRECT DEBIT RSPCA", "RSPCA", "charity"),
    ("JUST GIVING RUN FOR MIND", "JustGiving", "charity"),
    ("MACMILLAN CANCER SUPPORT DD", "Macmillan Cancer Support", "charity"),
    ("INTERFLORA BRITISH UNIT SLEAFORD", "Interflora", "gifts"),
    ("MOONPIG.COM LONDON", "Moonpig", "gifts"),
    ("FUNKY PIGEON WEB", "Funky Pigeon", "gifts"),
    ("NOT ON THE HIGH STREET", "notonthehighstreet", "gifts"),
    ("POST OFFICE COUNTER LONDON", "Post Office", "general"),
    ("ROYAL MAIL GROUP LTD WEB", "Royal Mail", "general"),
    ("FASTER PAYMENT TO M MORGAN REF BIRTHDAY", "M Morgan", "family"),
    ("KIDS PASS WEB", "Kids Pass", "family"),
    # --- cash, income, savings, transfers
    ("CASH NOTEMACHINE ACRE LANE ON 22 AUG", "Notemachine", "cash"),
    ("LINK ATM BRIXTON RD    LONDON        GBR", "Cash machine", "cash"),
    ("CASH HSBC SEP26 CD 1234 LEEDS", "HSBC cash machine", "cash"),
    ("BARCLAYS BANK PLC ATM 22 AUG 14.02", "Barclays cash machine", "cash"),
    ("Bargeldauszahlung SPARKASSE KOELNBONN", "Sparkasse cash machine", "cash"),
    ("RETRAIT DAB 12/09 BNP PARIBAS PARIS", "BNP Paribas cash machine", "cash"),
    ("NORTHWIND ANALYTICS SAL JUN26", "Northwind Analytics", "income"),
    ("HMRC PAYE REFUND", "HMRC", "income"),
    ("VINTED PAYOUT", "Vinted", "income"),
    ("DWP CHILD BENEFIT", "Child Benefit", "income"),
    ("PAYPAL TRANSFER FROM EBAY SALE", "eBay", "income"),
    ("CHIP SAVINGS TOPUP", "Chip", "savings"),
    ("PLUM FINTECH LTD", "Plum", "savings"),
    ("NS&I PREMIUM BONDS", "NS&I", "savings"),
    ("MONEYBOX SAVINGS", "Moneybox", "savings"),
    ("FASTER PAYMENT FROM A MORGAN REF JOINT", "Alex Morgan", "transfers"),
    ("TRANSFER TO 04-00-04 12345678", "Monzo", "transfers"),
    ("REVOLUT**4417* LONDON", "Revolut top-up", "transfers"),
]


# ================================================================= split, README, main
def assign_splits(items, key, seed):
    """Stratified by `key`: in each stratum round(40%) go to dev, the rest to test."""
    r = random.Random(seed)
    groups = defaultdict(list)
    for i, it in enumerate(items):
        groups[key(it)].append(i)
    split = {}
    for g in sorted(groups):
        idx = groups[g][:]
        r.shuffle(idx)
        n_dev = round(0.4 * len(idx))
        for j, i in enumerate(idx):
            split[i] = "dev" if j < n_dev else "test"
    return [split[i] for i in range(len(items))]


KIND_ORDER = ["merchant", "category", "place", "transfers", "income", "comparison", "multi", "count", "average",
              "max", "balance", "recurring", "relative", "mixed", "text", "none"]


def write_questions():
    assert len(QUESTIONS) >= 260
    splits = assign_splits(QUESTIONS, lambda q: q["kind"], SPLIT_SEED)
    seen = set()
    lines = []
    for i, (q, sp) in enumerate(zip(QUESTIONS, splits), 1):
        assert q["question"].lower() not in seen, q["question"]
        seen.add(q["question"].lower())
        assert q["kind"] in KIND_ORDER
        rec = {"id": f"money-{i:03d}", "split": sp, "kind": q["kind"], "question": q["question"],
               "as_of": q["as_of"], "expected": q["expected"], "accounts": q["accounts"], "note": q["note"]}
        lines.append(json.dumps(rec, ensure_ascii=False))
    (HERE / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return splits


def write_merchants():
    assert len(MERCHANTS) >= 150
    assert len({m[0] for m in MERCHANTS}) == len(MERCHANTS)
    for _, _, c in MERCHANTS:
        assert c in MONZO_CAT_DISPLAY, c
    splits = assign_splits(MERCHANTS, lambda m: m[2], SPLIT_SEED + 1)
    lines = [json.dumps({"description": d, "merchant": m, "category": c, "split": sp}, ensure_ascii=False)
             for (d, m, c), sp in zip(MERCHANTS, splits)]
    (HERE / "merchants.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return splits


README = """# money — blind evaluation set for "money questions"

A user imports their bank exports and asks about their spending in their own words; the answer must
give exact figures. This folder holds three statement files exactly as the banks export them, two short
documents, {nq} questions with expected answers, and {nm} labelled raw bank descriptions.

**Written blind**: the data, the questions and the expected answers were written from the brief only,
before any tuning, without looking at the product's code, tests or other benchmarks. All statements are
synthetic (fixed seed); the people, the employer, the letting agent and "Calder Bank" are invented.

## Files

| File | What it is |
|---|---|
| `statements/monzo_current_account.csv` | Alex's Monzo current account, {n_monzo} rows, 1 Jun-31 Oct 2026. Real Monzo export header (`Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,Notes and #tags,Address,Receipt,Description,Category split,Money Out,Money In`), DD/MM/YYYY, oldest first, UTF-8 with emoji, Monzo's category display names ("Eating out", "Personal care", ...), padded card descriptors (`TESCO STORES 6542      LONDON        GBR`), pot transfers (`pot_0000...`), Munich payments with EUR in Local amount. No balance column (as in the real export); the opening balance is in accounts.md. |
| `statements/calder_joint_account.csv` | Joint account (Alex & Sam) at "Calder Bank", {n_joint} rows, `Date,Description,Amount,Balance`, DD/MM/YYYY, **newest first**, CRLF, no categories, raw descriptions in capitals (`BOOTS UK 1234 LEEDS`, `CARD PAYMENT TO PUREGYM LTD ON 03 SEP`, `DIRECT DEBIT THAMES WATER`, foreign lines `... 745.00 EUR @ 0.8591 ON 19 SEP` followed by `NON-STERLING TRANSACTION FEE`). Online card payments are posted 0-2 days after the "ON dd MMM" date, never across a month end. |
| `statements/calder_easy_saver.ofx` | Savings account, OFX 1.02 SGML (no closing tags on leaf elements), {n_sav} STMTTRN (credits from Monzo, 2 withdrawals, monthly INT), LEDGERBAL with BALAMT and DTASOF. |
| `statements/accounts.md` | The user's description of the three files (whose account, which bank, Monzo opening balance, pots empty on 1 June). |
| `statements/fees.md` | Calder Bank fee page (~300 words): monthly fee £3.00, overdraft 39.9% EAR, non-sterling fee 2.95%, non-sterling cash fee £1.50, replacement card £5.00, saver 3.10% AER. |
| `questions.jsonl` | {nq} questions, one JSON object per line. |
| `merchants.jsonl` | {nm} raw descriptions from many UK/EU bank formats with merchant and Monzo category. |
| `build.py` | Rebuilds everything (standard library only): `python3 build.py`. Seeds: data {seed}, split {split_seed}. |
| `verify.py` | Re-reads the written CSV/OFX/accounts.md files (not build.py's ledger) and recomputes a sample of expected answers: `python3 verify.py`. |

## Question format

```json
{{"id": "money-001", "split": "dev", "kind": "merchant", "question": "...", "as_of": "2026-10-31",
 "expected": {{...}}, "accounts": ["monzo"], "note": "how the figure is defined"}}
```

* `as_of` is "today" for relative periods ("last month", "this month so far", "yesterday"). Most
  questions use 2026-10-31; some relative and balance questions use an earlier day (e.g. 2026-08-15).
* `accounts` is the scope: which statements the question is about (`monzo`, `joint`, `savings`).
  Questions that say "both accounts" use `["monzo", "joint"]`.
* `expected.type`: `amount` (spending as a positive figure), `count`, `average`, `name` (merchant,
  category or month, e.g. `"June"`), `balance` (with `as_of` and `account`: `monzo`, `joint`,
  `savings`, `monzo:Holiday pot`, `monzo:pots`, `all`), `compare` (values keyed by period),
  `amounts` (several merchants/categories), `mixed` (a figure from the statements plus `doc_fact` from
  fees.md), `text` (`facts`: any one of them in the answer shows the right fact), `none` (the honest
  answer is that there is no such spending).
* All figures are strings with two decimals, in GBP unless `currency` is `EUR` (two questions ask in
  euros; they use the Monzo Local amount).
* Every figure is computed in build.py with `decimal.Decimal` from the same ledger the files are
  written from; no figure is typed by hand.

## Conventions used by the expected answers (also spelled out per question in `note`)

* Spending is money out as a positive number; **refunds from the same merchant/category are netted**
  (ASOS, Amazon, Deliveroo, Trainline refunds).
* Monzo categories are taken as exported (in this export the Munich card payments are Holidays, the
  Munich ATM is Cash, coffee shops and takeaways are Eating out). "Coffee" = Pret, Caffè Nero,
  Monmouth Coffee; "takeaways" = Deliveroo, Just Eat, Uber Eats; "cinema" = Odeon, Vue, Everyman.
* On the joint account (no categories) the expected figure uses the obvious reading of the
  description: supermarkets incl. Ocado = groceries; rent, council tax, energy, water, broadband,
  TV licence = bills; Calder fee lines are bank charges, not bills.
* Month of a joint-account line = its Date column (the posting date).
* "Spending overall" excludes Income, Transfers and Savings (transfers to the joint account, the saver
  and pots are not spending). A purchase is a card payment (ATM withdrawals are not purchases).
* Monzo balance = the opening main balance in accounts.md plus every Amount (pots excluded unless the
  question asks for pots). "Altogether" = Monzo main + pots + joint + saver.
* "Summer" = June-August; "last quarter" with as_of 31 Oct = July-September; "this year" = what the
  statements hold (they start on 1 June 2026). Relative periods with two plausible readings
  ("last three months", "past week", "last 30 days") were checked to give the same figure either way.
* Munich: Monzo Amount (GBP) unless the question asks in euros. "Spent in Munich" includes the cash
  withdrawal and (on the joint account) the non-sterling fees, not the BA flights booked in July.

## Split

Stratified by `kind`: within each kind the questions are shuffled with `random.Random({split_seed})` and
round(40%) go to `dev`, the rest to `test`. Merchants are stratified by category the same way with seed
{mseed}.

### Questions per kind and split

| kind | dev | test | total |
|---|---|---|---|
{qtable}

### Merchants per split

dev {m_dev}, test {m_test} (total {nm}); {n_in_stmt} of the descriptions appear in the statements, the
rest are from other banks/merchants (supermarkets, restaurants, airlines, utilities, pharmacies, petrol
stations, streaming services, charities, councils, gyms; UK, German, Dutch, French, Spanish, Irish and
Italian wording).

## Things to know

* Monzo's Category column uses display names ("Eating out"); merchants.jsonl uses the snake_case
  Monzo category ids (`eating_out`) from the brief.
* The joint account is exported newest first; its Balance column is the balance after each line.
* PureGym appears on both accounts (Alex's Direct Debit £24.99 on Monzo, Sam's card £29.99 on the
  joint account); Uber rides (`UBER *TRIP`) and Uber Eats (`UBER *EATS`) are different things.
* Spotify went up from £11.99 to £12.99 in September; Disney+ stopped after August; Octopus went from
  £96 to £118 in October; salary rose in August.
* `none` questions were checked in build.py: no description, name, note or address in the scoped
  statements contains the merchant/place words.
"""


def write_readme(qsplits, msplits):
    by = defaultdict(Counter)
    for q, sp in zip(QUESTIONS, qsplits):
        by[q["kind"]][sp] += 1
    rows = [f"| {k} | {by[k]['dev']} | {by[k]['test']} | {by[k]['dev'] + by[k]['test']} |" for k in KIND_ORDER]
    tot = Counter(qsplits)
    rows.append(f"| **total** | {tot['dev']} | {tot['test']} | {len(QUESTIONS)} |")
    stmt_desc = {t.desc for t in LEDGER}
    n_in = sum(1 for d, _, _ in MERCHANTS if d in stmt_desc)
    mc = Counter(msplits)
    (HERE / "README.md").write_text(README.format(
        nq=len(QUESTIONS), nm=len(MERCHANTS), n_monzo=len(acct_txns("monzo")), n_joint=len(acct_txns("joint")),
        n_sav=len(acct_txns("savings")), seed=SEED, split_seed=SPLIT_SEED, mseed=SPLIT_SEED + 1,
        qtable="\n".join(rows), m_dev=mc["dev"], m_test=mc["test"], n_in_stmt=n_in), encoding="utf-8")


def main():
    write_statements()
    build_questions()
    qs = write_questions()
    ms = write_merchants()
    write_readme(qs, ms)
    print(f"questions: {len(QUESTIONS)} ({Counter(qs)}), merchants: {len(MERCHANTS)} ({Counter(ms)})")
    print("rows: monzo", len(acct_txns("monzo")), "joint", len(acct_txns("joint")), "savings", len(acct_txns("savings")))


if __name__ == "__main__":
    main()

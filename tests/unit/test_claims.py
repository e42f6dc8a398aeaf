"""Claim verification: the facts of an answer sentence against the passage it cites
(``answer.quantities``, ``answer.claims``). Each case is a kind of wrong answer a
model or a careless extract ships, or a right one written another way."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ragline.answer.claims import RecordRow, check_claim, check_records_claim
from ragline.answer.passages import Passage, definitions
from ragline.answer.quantities import quantities
from ragline.answer.text import rejoin

DEPOSITS = Passage.of(1, "| Tenure | Rate |\n| --- | --- |\n| 1 year | 6.50% p.a. |\n| 3 years | 7.00% p.a. |\n"
                         "| 5 years | 7.25% p.a. |\n\nSenior citizens get an additional 0.50%.", "Fixed Deposits")
PLANS = Passage.of(2, "Our Standard account costs €4.50 per month. The Premium account costs €9.50 per month "
                      "and includes travel insurance.")
ROOMS = Passage.of(3, "A single room costs 80 euros a night,\n\na double room 120 euros. Breakfast is 12 euros.")
LOANS = Passage.of(4, "Personal loans carry interest from 10.5% to 16% p.a. The Equated Monthly Instalment (EMI) "
                      "is debited on the 5th. A processing fee of Rs. 2,500 + GST applies. NEFT transfers up to "
                      "Rs. 10,000 cost Rs. 2.50. Branches close at 16:00.")
ALL = [DEPOSITS, PLANS, ROOMS, LOANS]


def verdict(sentence: str, cited: list[int]) -> str:
    check = check_claim(sentence, cited, ALL)
    return "none" if check is None else check.status


@pytest.mark.parametrize("written, kind, value, unit", [
    ("7.25%", "percent", "7.25", ""), ("7.25 percent", "percent", "7.25", ""), ("7,25 %", "percent", "7.25", ""),
    ("seven per cent", "percent", "7", ""), ("Rs. 500", "money", "500", "INR"), ("₹500", "money", "500", "INR"),
    ("INR 5,000", "money", "5000", "INR"), ("Rs. 1.5 lakh", "money", "150000", "INR"),
    ("Rs. 10,00,000", "money", "1000000", "INR"), ("1.200 €", "money", "1200", "EUR"), ("35,00 €", "money", "35", "EUR"),
    ("5 euros", "money", "5", "EUR"), ("£4.50", "money", "4.50", "GBP"), ("38.20 GBP", "money", "38.20", "GBP"),
    ("two weeks", "duration", "14", "d"), ("14 days", "duration", "14", "d"), ("1 year", "duration", "12", "m"),
    ("3-year", "duration", "36", "m"), ("16:00", "time", "960", ""), ("4 pm", "time", "960", ""),
    ("4:00 p.m.", "time", "960", ""), ("10 h", "time", "600", ""), ("1,000", "number", "1000", ""),
])
def test_ways_of_writing_a_value_normalise_to_one(written: str, kind: str, value: str, unit: str) -> None:
    (q,) = quantities(written)
    assert (q.kind, q.value, q.unit) == (kind, Decimal(value), unit)


def test_dates_in_english_iso_and_spanish_are_one_day() -> None:
    days = {q.value for text in ("1 April 2026", "2026-04-01", "1 de abril de 2026", "April 1, 2026")
            for q in quantities(text)}
    assert len(days) == 1


def test_a_currency_is_part_of_the_value() -> None:
    (rupees,), (euros,), (bare,) = quantities("₹500"), quantities("€500"), quantities("500")
    assert not rupees.same(euros) and rupees.same(bare) and euros.same(bare)


def test_a_wrong_rate_is_a_wrong_number_even_about_the_same_deposit() -> None:
    check = check_claim("A 3-year deposit earns 8.4% [1].", [1], ALL)
    assert check is not None and check.status == "wrong_number" and "not 8.4%" in (check.problem or "")
    assert verdict("A 3-year deposit earns 7.00% [1].", [1]) == "supported"
    assert verdict("A 3-year deposit earns seven percent [1].", [1]) == "supported"


@pytest.mark.parametrize("sentence, cited", [
    ("A 1-year deposit earns 7.00% [1].", [1]),  # the 3-year rate given for 1 year
    ("The Standard account costs €9.50 a month [2].", [2]),  # Premium's fee given for Standard
    ("The Premium account costs €4.50 a month [2].", [2]),
    ("A double room costs 80 euros [3].", [3]),  # the scan's other half
    ("A single room costs 120 euros a night [3].", [3]),
])
def test_a_right_figure_for_the_wrong_thing_is_a_wrong_entity(sentence: str, cited: list[int]) -> None:
    assert verdict(sentence, cited) == "wrong_entity"


@pytest.mark.parametrize("sentence, cited", [
    ("The Premium account costs 9.50 euros a month [2].", [2]),
    ("A double room costs 120 euros [3].", [3]),
    ("A single room costs 80 euros a night [3].", [3]),
    ("Breakfast costs 12 euros [3].", [3]),
    ("The processing fee is ₹2500 plus GST [4].", [4]),
    ("NEFT up to Rs 10,000 costs Rs 2.50 [4].", [4]),
    ("Senior citizens get an extra 0.5% [1].", [1]),
    ("Interest on personal loans ranges from 10.5% to 16% [4].", [4]),
    ("The EMI is debited on the 5th [4].", [4]),
    ("Branches close at 4 pm [4].", [4]),
])
def test_right_claims_written_differently_pass(sentence: str, cited: list[int]) -> None:
    assert verdict(sentence, cited) == "supported"


def test_a_fact_the_cited_source_lacks_but_another_states_is_a_wrong_citation() -> None:
    check = check_claim("The Premium account costs €9.50 [1].", [1], ALL)
    assert check is not None and check.status == "wrong_citation" and check.better == 2


def test_a_claim_about_something_no_source_names_is_unsupported() -> None:
    assert verdict("Paris is the capital of France [1].", [1]) == "unsupported"
    assert verdict("The processing fee is Rs. 3,000 [4].", [4]) == "wrong_number"


def test_a_sentence_without_figures_or_names_is_left_to_the_wording_check() -> None:
    assert verdict("You can apply online [4].", [4]) == "none"


def test_abbreviations_are_learned_both_ways() -> None:
    found = definitions("The Equated Monthly Instalment (EMI) is due. Know Your Customer (KYC) rules apply. "
                        "Marginal Cost of Funds based Lending Rate (MCLR).")
    assert found["emi"] == "equated monthly instalment" and found["know your customer"] == "kyc"
    assert found["mclr"] == "marginal cost of funds based lending rate"
    glossary = Passage.of(5, "National Electronic Funds Transfer (NEFT) runs every half hour.")
    charges = Passage.of(6, "The national electronic funds transfer fee is Rs. 2.")
    assert check_claim("NEFT costs Rs. 2 [6].", [6], [glossary, charges]).status == "supported"  # type: ignore[union-attr]


def test_a_sentence_cut_by_a_scan_break_is_rejoined() -> None:
    assert rejoin(["A single room costs 80 euros a night,", "a double room 120 euros."]) == [
        "A single room costs 80 euros a night, a double room 120 euros."]
    assert rejoin(["Opening hours.", "Monday to Friday."]) == ["Opening hours.", "Monday to Friday."]


ROWS = [RecordRow("Groceries", Decimal("412.80"), "GBP"), RecordRow("Transport", Decimal("120.00"), "GBP")]


@pytest.mark.parametrize("sentence, status", [
    ("Groceries cost you £412.80.", "supported"),
    ("Your top category was Groceries at £412.80.", "supported"),
    ("You spent most on Transport.", "wrong_entity"),  # no number, the wrong top category
    ("Transport cost you £412.80.", "wrong_entity"),  # the right figure for the wrong category
    ("You spent £99 on eating out.", "wrong_number"),
])
def test_money_sentences_must_keep_the_computed_pairs(sentence: str, status: str) -> None:
    assert check_records_claim(sentence, ROWS).status == status


def test_running_headers_and_footers_leave_the_sentence_a_page_break_cut() -> None:
    from ragline.ingest.loaders.pdf import strip_running

    pages = ["Acme Bank | Deposits\nRates\nYou may deposit up to Rs. 1.5\nPage 1 of 2",
             "Acme Bank | Deposits\nlakh in a financial year.\nPage 2 of 2"]
    first, second = strip_running(pages)
    assert first == "Rates\nYou may deposit up to Rs. 1.5" and second == "lakh in a financial year."
    assert rejoin([first, second])[-1].endswith("up to Rs. 1.5 lakh in a financial year.")
    assert strip_running(["One page\nPage 1 of 1"]) == ["One page\nPage 1 of 1"]


def test_a_collection_floor_is_lowered_to_its_background_and_never_raised() -> None:
    from ragline.answer.floor import MARGIN, MAX_LOWER, calibrated

    assert calibrated(0.39, [0.20, 0.25]) == pytest.approx(0.25 + MARGIN)  # paraphrases at 0.3 pass here
    assert calibrated(0.39, [0.05]) == pytest.approx(0.39 - MAX_LOWER)  # lowered by a bounded step
    assert calibrated(0.39, [0.45]) == 0.39 and calibrated(0.39, []) == 0.39  # never above the model's



def test_a_rates_period_is_part_of_its_value() -> None:
    (monthly,), (yearly,), (bare,) = quantities("€8.95 a month"), quantities("€8.95 a year"), quantities("€8.95")
    assert not monthly.same(yearly) and monthly.same(bare)
    (pa,) = quantities("7% p.a.")
    assert pa.per == "year" and pa.same(quantities("7% a year")[0]) and not pa.same(quantities("7% per month")[0])
    plans = Passage.of(1, "The Plus package costs €8.95 a month.")
    assert check_claim("The Plus package costs €8.95 a year [1].", [1], [plans]).status == "wrong_number"  # type: ignore[union-attr]


def test_free_and_no_fee_state_an_amount_of_nothing() -> None:
    fees = Passage.of(1, "Card payments in euro are free of charge. Other currencies cost 1.75%.")
    assert check_claim("Paying in euro costs no fee at all [1].", [1], [fees]).status == "supported"  # type: ignore[union-attr]
    assert [q.value for q in quantities("5 free ATM withdrawals")] == [Decimal(5)]  # an adjective, not a price


def test_in_a_list_of_pairs_both_values_share_a_clause() -> None:
    rates = Passage.of(1, "Rates: 3 months 2.10%, 12 months 2.75%, 24 months 2.60% per year.")
    assert check_claim("A 24-month deposit pays 2.60% [1].", [1], [rates]).status == "supported"  # type: ignore[union-attr]
    assert check_claim("A 24-month deposit pays 2.75% [1].", [1], [rates]).status == "wrong_entity"  # type: ignore[union-attr]


def test_a_money_question_naming_what_no_filter_took_says_so() -> None:
    from ragline.records.parser import _unread
    from ragline.records.plan import PlanFilters

    assert _unread("How much did I spend on presents and cards?", PlanFilters(), "sum") == ["presents"]
    assert _unread("How much did I spend last month?", PlanFilters(), "sum") == []
    assert _unread("How much did I spend on presents?", PlanFilters(merchants=("Presents Ltd",)), "sum") == []


def test_the_covers_message_makes_kind_phrases_plural_in_each_language() -> None:
    from ragline.answer.constraints import plural

    assert plural("car loan") == "car loans" and plural("extra-large locker") == "extra-large lockers"
    assert plural("tarjeta digital", "spanish") == "tarjetas digitales"  # the adjective agrees
    assert plural("bicicleta tándem", "spanish") == "bicicletas tándem"  # a noun in apposition does not
    assert plural("nivel oro", "spanish") == "niveles oro"

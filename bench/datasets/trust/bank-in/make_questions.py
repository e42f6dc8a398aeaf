#!/usr/bin/env python3
"""Write questions.jsonl for the bank-in set (hand-written questions, fixed split).

The questions below were written by hand from the documents in src-text/.
This script only numbers them, assigns the dev/test split (stratified by kind,
fixed seed) and writes questions.jsonl.  Run check.py afterwards to verify that
every fact is present in the built documents.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240401
DEV_SHARE = 0.40

SA = "savings-accounts.docx"
FD = "fixed-deposits.pdf"
PL = "personal-loans.docx"
HL = "home-loans.pdf"
CC = "cards.docx"
FT = "fund-transfers.pdf"
KY = "kyc-account-opening.docx"
LK = "locker-rent.pdf"
SC = "service-charges.docx"

# (question, facts, wrong_facts, source)
ANSWERABLE = [
    ("What is the minimum Average Monthly Balance for a Regular Savings Account at a metro branch?",
     ["Rs. 2,000", "2,000", "2000"], ["Rs. 1,000", "Rs. 25,000"], SA),
    ("What is the charge for non-maintenance of AMB in a Premium Savings Account?",
     ["Rs. 400", "400"], ["Rs. 100", "Rs. 75"], SA),
    ("What rate of interest is paid on savings account balances above Rs. 10,00,000?",
     ["3.25%", "3.25"], ["3.00%", "2.75%"], SA),
    ("What is the charge for closing a Premium Savings Account after 14 days but within 12 months of opening?",
     ["Rs. 1,000", "1,000", "1000"], ["Rs. 500"], SA),
    ("What is the FD interest rate for the general public for the 444 days Utsav deposit?",
     ["7.40%", "7.40", "7.4%"], ["7.90%", "7.00%"], FD),
    ("What is the FD interest rate for senior citizens for a tenure of 3 years to less than 5 years?",
     ["7.75%", "7.75"], ["7.25%", "7.60%"], FD),
    ("What is the premature withdrawal penalty on an FD of Rs. 5 lakh and above?",
     ["1.00%", "1%", "1 percent"], ["0.50%"], FD),
    ("What is the maximum amount that can be deposited in a Tax Saver FD in a financial year?",
     ["Rs. 1.5 lakh", "1.5 lakh", "1,50,000"], [], FD),
    ("What percentage of the FD principal can I borrow as a loan or overdraft against the deposit?",
     ["90%", "90 percent"], [], FD),
    ("What is the processing fee on a personal loan?",
     ["1.50%", "1.5%"], ["0.50%"], PL),
    ("What is the foreclosure charge on a personal loan closed after 24 EMIs have been paid?",
     ["2%"], ["4%"], PL),
    ("What is the maximum personal loan amount?",
     ["Rs. 15,00,000", "15,00,000", "15 lakh"], ["Rs. 2 crore", "2 crore"], PL),
    ("What rate of interest applies to a personal loan for a credit score of 700 to 749?",
     ["12.50%", "14.00%", "12.5%"], ["10.75%", "14.50%", "16.50%"], PL),
    ("What is the EMI on a personal loan of Rs. 3,00,000 at 12.00% p.a. for 36 months?",
     ["Rs. 9,964", "9,964", "9964"], ["Rs. 11,122", "Rs. 4,661"], PL),
    ("What is the minimum credit score required for a personal loan?",
     ["650"], ["750", "700"], PL),
    ("What is the Bank's current one-year MCLR?",
     ["8.75%", "8.75"], ["9.00%"], HL),
    ("What is the home loan interest rate for a salaried borrower for a loan above Rs. 75 lakh?",
     ["9.25%", "9.25"], ["9.15%", "9.00%"], HL),
    ("What is the maximum LTV for a home loan above Rs. 30 lakh and up to Rs. 75 lakh?",
     ["80%", "80 percent"], ["90%", "75%"], HL),
    ("What is the processing fee on a home loan?",
     ["0.50%", "0.5%"], ["1.50%"], HL),
    ("What is the maximum repayment tenure of a home loan?",
     ["30 years", "thirty years"], ["60 months"], HL),
    ("What is the annual fee of the Visa Gold debit card?",
     ["₹350", "350"], ["₹150", "₹250"], CC),
    ("What is the daily ATM cash withdrawal limit on the RuPay Classic debit card?",
     ["₹25,000", "25,000"], ["₹50,000"], CC),
    ("What is the cash advance fee on the GUCB Classic Credit Card?",
     ["2.5%", "Rs. 300"], ["3.40%"], CC),
    ("What is the credit card late payment fee when the total amount due is Rs. 7,000?",
     ["Rs. 750", "750"], ["Rs. 400", "Rs. 1,000"], CC),
    ("What are the finance charges on the GUCB Gold Credit Card?",
     ["3.25%", "39.00%", "39%"], ["3.40%", "40.80%"], CC),
    ("What is the branch cut-off time for RTGS?",
     ["3:30 pm", "15:30", "3.30 pm"], ["4:00 pm", "16:00"], FT),
    ("What is the charge for an NEFT transfer of Rs. 5,000 made at the branch?",
     ["Rs. 2.50", "2.50"], ["Rs. 15 + GST", "Rs. 25 + GST"], FT),
    ("How much can I transfer to a newly added beneficiary in the first 24 hours?",
     ["Rs. 50,000", "50,000"], ["Rs. 5 lakh", "Rs. 10,00,000"], FT),
    ("What compensation does the Bank pay if the reversal of a failed IMPS transfer is delayed beyond T+1?",
     ["Rs. 100", "100"], [], FT),
    ("How often must KYC be updated for a high risk customer?",
     ["2 years", "two years"], ["8 years", "10 years"], KY),
    ("What is the maximum balance allowed in a small account?",
     ["Rs. 50,000", "50,000"], ["Rs. 1 lakh", "Rs. 10,000"], KY),
    ("From what age can a minor open and operate a savings account independently?",
     ["10 years", "ten years"], ["18 years"], KY),
    ("What is the annual rent of a medium locker at a metro or urban branch?",
     ["Rs. 3,000", "3,000"], ["Rs. 2,000", "Rs. 1,500", "Rs. 6,000"], LK),
    ("What is the Bank's liability if the contents of a locker are lost in a theft?",
     ["100 times"], [], LK),
    ("What is the charge for a duplicate statement issued at the branch?",
     ["Rs. 100", "100"], ["Rs. 200", "Rs. 150"], SC),
    ("What is charged for each financial transaction at an ATM beyond the free limit?",
     ["Rs. 21", "21"], ["Rs. 10"], SC),
    ("What is the charge when a cheque issued by me is returned unpaid for insufficient funds?",
     ["Rs. 500", "500"], ["Rs. 150", "Rs. 450"], SC),
]

PARAPHRASE = [
    ("If I break my deposit of about 2 lakh before it finishes, how much less interest do you give me?",
     ["0.50%", "0.5%", "half a percent"], ["1.00%"], FD),
    ("I'm at the branch at 5 in the evening and want to send money to my son's account in another bank. Will it go today?",
     ["next working day", "next day", "4:00 pm"], [], FT),
    ("How much money do I have to keep in my normal savings account at a village branch so that I don't get fined?",
     ["Rs. 1,000", "1,000", "1000"], ["Rs. 2,000"], SA),
    ("I'm 65 and have your senior citizens' savings account. If my balance drops below the minimum, how much do you cut each month?",
     ["Rs. 75", "75"], ["Rs. 100", "Rs. 50"], SA),
    ("How often do you add interest to my savings account?",
     ["quarterly", "every quarter", "June"], ["monthly"], SA),
    ("If I want to pay off my whole personal loan after about one year, what will you charge me?",
     ["4%"], ["2%"], PL),
    ("I'm 57 and work for a salary. Can I get a personal loan for three years?",
     ["58"], ["65"], PL),
    ("Once my personal loan is approved and papers are done, how soon does the money come into my account?",
     ["3 working days", "three working days"], [], PL),
    ("I'm buying a flat and need a loan of around 25 lakh. How much of the price will you fund?",
     ["90%", "90 percent"], ["80%", "75%"], HL),
    ("If I get a bonus and pay off part of my housing loan early, will you charge me anything?",
     ["Nil", "no charge", "no penalty", "not charged", "free"], ["4%", "2%"], HL),
    ("I'm a woman buying a flat in my own name. Do I get any discount on the interest?",
     ["0.05"], ["0.15"], HL),
    ("I lost the debit card that came with my zero-balance account. How much will a new one cost?",
     ["₹200", "200"], ["₹300", "₹150"], CC),
    ("If I can't clear my whole credit card bill, what is the least I have to pay?",
     ["5%", "Rs. 200"], [], CC),
    ("If I take cash out using my credit card, do I get some days free before interest starts?",
     ["no interest-free", "no interest free", "immediately"], ["50 days"], CC),
    ("Can I use my Gold debit card when I travel abroad, and is there an extra fee on it?",
     ["3.5%"], ["3.0%"], CC),
    ("How much is the biggest locker at a small-town branch?",
     ["Rs 4,000", "Rs. 4,000", "4,000"], ["Rs. 6,000", "Rs. 1,000"], LK),
    ("I'm 70 years old. Do I get any discount on a small locker?",
     ["10%", "10 percent"], [], LK),
    ("I've lost my locker key. What will it cost me?",
     ["Rs. 1,000", "1,000"], ["Rs. 3,000"], LK),
    ("Till what time in the afternoon can I get into my locker on a weekday?",
     ["4:00 pm", "4 pm", "4.00 pm"], ["1:00 pm", "3:30 pm"], LK),
    ("How much do you take if I withdraw cash from another bank's machine after my free ones are used up?",
     ["Rs. 21", "21"], ["Rs. 10", "₹25"], SC),
    ("How much does a letter from the bank showing how much money I have in my account cost?",
     ["Rs. 100", "100"], ["Rs. 150", "Rs. 200"], SC),
    ("I want to stop a cheque I already gave someone. Is there a fee?",
     ["Rs. 100", "100"], ["Rs. 500"], SC),
    ("How much cash can I pay in at my own branch each month before you start charging?",
     ["Rs. 2 lakh", "2 lakh", "2,00,000"], [], SC),
    ("I don't have any ID papers at all. Can I still open an account?",
     ["small account"], [], KY),
    ("I'm retired. What would you pay me on money locked away for two and a half years?",
     ["7.60%", "7.6%", "7.60"], ["7.10%", "7.75%"], FD),
    ("What happens to my deposit when it finishes if I don't tell you anything?",
     ["renewed automatically", "automatically renewed", "same tenure", "auto-renew"], [], FD),
    ("I'm 45. How much interest can I earn from my deposits in a year before you start cutting tax?",
     ["Rs. 40,000", "40,000"], ["Rs. 50,000"], FD),
]

ABBREVIATION = [
    ("What is the EMI bounce charge on my loan?",
     ["Rs. 450", "450"], ["Rs. 500", "Rs. 150"], SC),
    ("What is the cut-off time for National Electronic Funds Transfer at a branch?",
     ["4:00 pm", "16:00", "4 pm"], ["3:30 pm", "15:30"], FT),
    ("What is the minimum amount for a Real Time Gross Settlement transfer?",
     ["Rs. 2,00,000", "2,00,000", "2 lakh"], [], FT),
    ("How much does an Immediate Payment Service transfer of Rs. 1.5 lakh cost?",
     ["Rs. 12", "12"], ["Rs. 6", "Rs. 15"], FT),
    ("Above how much interest in a year is tax deducted at source on the fixed deposits of a senior citizen?",
     ["Rs. 50,000", "50,000"], ["Rs. 40,000"], FD),
    ("What spread over the marginal cost of funds based lending rate is charged on a personal loan?",
     ["2.00% to 7.75%", "2.00%", "7.75%"], ["0.25%", "0.40%", "0.50%"], PL),
    ("What is the equated monthly instalment on a Rs. 30 lakh home loan for 20 years?",
     ["Rs. 26,992", "26,992", "26992"], ["Rs. 20,285", "Rs. 42,475"], HL),
    ("How often does a low-risk customer have to update their Know Your Customer details?",
     ["10 years", "ten years"], ["8 years", "2 years"], KY),
    ("How big a fixed deposit will I have to make when I take a locker?",
     ["3 years", "three years"], [], LK),
    ("How many free cheque leaves does a Basic Savings Bank Deposit account get in a financial year?",
     ["10", "10 leaves", "10 cheque leaves", "10 free"], [], SC),
    ("What do you charge for changing the National Automated Clearing House mandate on my loan?",
     ["INR 350", "350"], ["Rs. 450"], SC),
    ("What is the per-transaction limit for an Immediate Payment Service transfer?",
     ["Rs. 5 lakh", "5 lakh", "5,00,000"], ["Rs. 10,00,000"], FT),
    ("Is Goods and Services Tax charged on locker rent, and at what rate?",
     ["18%"], [], LK),
    ("For a house under construction, how long can I pay only interest before the equated monthly instalments start?",
     ["18 months", "eighteen months"], [], HL),
    ("If I miss an equated monthly instalment on my home loan, what penalty is charged?",
     ["1% per month", "1%"], ["2% per month", "2%"], HL),
    ("What does a Real Time Gross Settlement transfer of Rs. 8 lakh cost at the branch?",
     ["Rs. 45", "45"], ["Rs. 20", "Rs. 25"], FT),
    ("What's the charge when my SI fails because there isn't enough money in the account?",
     ["Rs. 100", "100"], [], SC),
]

# (question, wrong_facts, covers_instead)
NEAR_MISS = [
    ("What is the interest rate on a car loan?",
     ["10.75%", "16.50%", "9.00%"], "personal loans and home loans only"),
    ("What is the interest rate on an education loan for studying abroad?",
     ["10.75%", "16.50%"], "personal loans and home loans only"),
    ("What is the FD interest rate for a 7-year deposit?",
     ["6.75%", "7.25%"], "FDs from 7 days up to a maximum of 5 years"),
    ("What interest do senior citizens get on a 10-year fixed deposit?",
     ["7.25%", "7.75%"], "FDs from 7 days up to a maximum of 5 years"),
    ("What is the minimum balance for a Platinum Savings Account?",
     ["Rs. 25,000", "Rs. 2,000"], "Regular, Premium, Senior Citizen and BSBD savings accounts"),
    ("What is the annual rent for an extra-large locker?",
     ["Rs. 6,000", "Rs 4,000"], "small, medium and large lockers"),
    ("What is the interest rate and processing fee on a gold loan?",
     ["1.50%", "0.50%", "10.75%"], "personal loans and home loans only"),
    ("What are your recurring deposit interest rates?",
     ["7.00%", "7.25%"], "Fixed Deposits (FDs) only"),
    ("What documents does an NRI need to open an NRE account?",
     [], "account opening and KYC for resident individuals only"),
    ("What is the joining fee for your Platinum credit card?",
     ["Rs. 999"], "GUCB Classic and GUCB Gold credit cards"),
    ("Do you have a credit card for college students who don't have an income yet?",
     ["Rs. 499", "Rs. 999"], "GUCB Classic and Gold credit cards for earning applicants (minimum income Rs. 3 lakh / Rs. 6 lakh)"),
    ("What is the interest rate on a loan against property?",
     ["9.00%", "9.25%"], "home loans for buying, building, extending or taking over a home loan"),
    ("What are the charges for sending money abroad through SWIFT?",
     ["Rs. 45", "Rs. 25"], "domestic NEFT, RTGS and IMPS transfers"),
    ("What is the daily UPI transfer limit?",
     ["Rs. 5 lakh", "Rs. 10,00,000"], "NEFT, RTGS and IMPS transfers"),
    ("What is the minimum balance for a current account for my shop?",
     ["Rs. 2,000", "Rs. 25,000"], "savings accounts for individuals"),
    ("What is the processing fee on a two-wheeler loan?",
     ["1.50%", "Rs. 2,000"], "personal loans"),
    ("What is the annual fee for the Mastercard Platinum debit card?",
     ["₹350", "₹150"], "RuPay Classic and Visa Gold debit cards"),
    ("What is the penalty for closing a Senior Citizens Savings Scheme (SCSS) account early?",
     ["0.50%", "1.00%"], "premature withdrawal of FDs"),
    ("What is the home loan interest rate for buying a residential plot?",
     ["9.00%", "9.15%"], "home loans for a flat or house, construction on an owned plot, extension and takeover; a plot alone is not financed"),
    ("What is the foreclosure charge on a business loan?",
     ["4%", "2%"], "personal loans"),
    ("What is the cut-off time for depositing cheques for same-day clearing?",
     ["4:00 pm", "3:30 pm"], "branch cut-off times for NEFT and RTGS"),
    ("Do you charge anything to issue a forex travel card?",
     ["3.5%", "3.0%"], "debit cards and credit cards"),
    ("What is the 3-year FD interest rate for NRIs?",
     ["7.25%", "7.75%"], "domestic retail FDs"),
    ("What is the interest rate on a top-up home loan?",
     ["9.00%", "9.15%"], "home loans for purchase, construction, extension and takeover"),
    ("How much air accident insurance cover comes with the Gold credit card?",
     ["Rs. 999"], "GUCB Gold credit card fees, limits and reward points"),
]

OFF_TOPIC = [
    "What's the weather forecast for Nashik tomorrow?",
    "How do I make masala chai?",
    "What is SBI's current one-year FD rate?",
    "Who won the 2011 Cricket World Cup?",
    "What is the RBI repo rate right now?",
    "How do I file my income tax return online?",
    "What does HDFC Bank charge for a medium locker?",
    "Can you suggest a good mutual fund for a monthly SIP?",
    "What is the capital of Maharashtra?",
    "How do I reset my Gmail password?",
    "What is the price of 24-carat gold in Mumbai today?",
    "What time does the Panchavati Express leave Nashik for Mumbai?",
    "How many calories are there in a plate of poha?",
    "What is the price of one Bitcoin in rupees?",
    "How do you say 'thank you' in Marathi?",
    "What are ICICI Bank's personal loan interest rates?",
]

# (history question, follow-up, facts, wrong_facts, source)
FOLLOW_UP = [
    ("What is the FD interest rate for 1 year to less than 2 years?", "And for senior citizens?",
     ["7.50%", "7.5%"], ["7.00%", "7.90%"], FD),
    ("What is the annual rent of a small locker at a metro branch?", "What about a large one?",
     ["Rs. 6,000", "6,000"], ["Rs 4,000", "Rs. 1,500", "Rs. 3,000"], LK),
    ("What is the NEFT charge at the branch for sending Rs. 50,000?", "And if I do it through net banking?",
     ["free", "no charge", "nil"], ["Rs. 5 + GST"], FT),
    ("What is the home loan interest rate for a salaried person borrowing Rs. 40 lakh?", "And if I'm self-employed?",
     ["0.15", "9.30%", "9.3%"], ["9.15%"], HL),
    ("What is the annual fee of the GUCB Classic Credit Card?", "How much do I have to spend to get it waived?",
     ["Rs. 50,000", "50,000"], ["Rs. 1.5 lakh"], CC),
    ("What's the foreclosure charge on a personal loan if I close it after 12 EMIs?", "What if I wait until after 24 EMIs?",
     ["2%"], ["4%"], PL),
    ("How many free transactions a month do I get at your own ATMs with a Regular Savings Account?", "And with a Premium account?",
     ["10 transactions", "10 free", "10"], ["5 transactions"], SC),
    ("What is the minimum balance for a Premium Savings Account?", "What happens if I don't keep it?",
     ["Rs. 400", "400"], ["Rs. 100", "Rs. 75"], SA),
    ("What is the IMPS charge for sending Rs. 20,000?", "I have a Premium Savings account. Do I still pay it?",
     ["waived", "no charge", "free"], [], FT),
    ("What's the penalty if I close a Rs. 3 lakh FD before maturity?", "And if the deposit were Rs. 10 lakh?",
     ["1.00%", "1%", "1 percent"], ["0.50%"], FD),
    ("What is the late payment fee on my credit card if the amount due is Rs. 3,000?", "And if it's Rs. 12,000?",
     ["Rs. 1,000", "1,000"], ["Rs. 750", "Rs. 400"], CC),
    ("How often must KYC be updated for a medium risk customer?", "And if nothing has changed, what do I need to do?",
     ["self-declaration", "self declaration", "declaration"], [], KY),
    ("What is the processing fee on a home loan?", "Is there a cap on it?",
     ["Rs. 25,000", "25,000"], ["Rs. 15,000"], HL),
    ("What is the charge for a duplicate statement at the branch?", "What if the statement is for a period two years ago?",
     ["Rs. 200", "200"], ["Rs. 100"], SC),
    ("What is the maximum LTV on a home loan of Rs. 20 lakh?", "And on a Rs. 1 crore loan?",
     ["75%", "75 percent"], ["80%", "90%"], HL),
    ("How many free locker operations do I get in a year?", "What do extra visits cost?",
     ["Rs. 100", "100"], [], LK),
    ("What is the daily ATM limit on the Visa Gold debit card?", "And how much can I spend in shops and online in a day?",
     ["₹1,00,000", "1,00,000", "1 lakh"], ["₹50,000"], CC),
]


def main():
    items = []
    for q, f, w, s in ANSWERABLE:
        items.append(dict(kind="answerable", question=q, facts=f, wrong_facts=w, source=s, history=[]))
    for q, f, w, s in PARAPHRASE:
        items.append(dict(kind="paraphrase", question=q, facts=f, wrong_facts=w, source=s, history=[]))
    for q, f, w, s in ABBREVIATION:
        items.append(dict(kind="abbreviation", question=q, facts=f, wrong_facts=w, source=s, history=[]))
    for q, w, c in NEAR_MISS:
        items.append(dict(kind="near-miss", question=q, facts=[], wrong_facts=w, source=None, history=[],
                          covers_instead=c))
    for q in OFF_TOPIC:
        items.append(dict(kind="off-topic", question=q, facts=[], wrong_facts=[], source=None, history=[]))
    for h, q, f, w, s in FOLLOW_UP:
        items.append(dict(kind="follow-up", question=q, facts=f, wrong_facts=w, source=s, history=[h]))

    rng = random.Random(SEED)
    # split: stratified by kind, ~40% dev
    kinds = ["answerable", "paraphrase", "abbreviation", "near-miss", "off-topic", "follow-up"]
    for k in kinds:
        group = [it for it in items if it["kind"] == k]
        rng.shuffle(group)
        n_dev = round(len(group) * DEV_SHARE)
        for i, it in enumerate(group):
            it["split"] = "dev" if i < n_dev else "test"
    # mix kinds in the file order, then number
    rng.shuffle(items)
    out = os.path.join(HERE, "questions.jsonl")
    with open(out, "w", encoding="utf-8") as fh:
        for n, it in enumerate(items, 1):
            rec = {"id": f"bank-in-{n:03d}", "split": it["split"], "kind": it["kind"],
                   "question": it["question"], "facts": it["facts"],
                   "wrong_facts": it["wrong_facts"], "source": it["source"],
                   "history": it["history"]}
            if it["kind"] == "near-miss":
                rec["covers_instead"] = it["covers_instead"]
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print("wrote", len(items), "questions to", out)


if __name__ == "__main__":
    main()

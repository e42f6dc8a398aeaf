# -*- coding: utf-8 -*-
"""Rebuild items.jsonl for the blind adversarial claim-checking set.

    python3 build.py            # writes items.jsonl and prints counts + lint warnings

Everything (sources, replies, gold labels) is hand-written text in this file and in
sources_text.py. There are no binary files in this set.
"""
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sources_text import SOURCES  # noqa: E402

SEED = 20261127
DEV_FRACTION = 0.25
LABELS = {"supported", "wrong_number", "wrong_entity", "uncited", "unsupported", "wrong_citation"}

ITEMS = []


def add(kind, domain, lang, question, srcs, claims, facts, wrong_facts, records=None):
    ITEMS.append(dict(kind=kind, domain=domain, lang=lang, question=question, srcs=srcs,
                      claims=claims, facts=facts, wrong_facts=wrong_facts, records=records))


S, WN, WE, UC, UN, WC = ("supported", "wrong_number", "wrong_entity", "uncited",
                         "unsupported", "wrong_citation")

# =====================================================================================
# 1. WRONG NUMBER (30)
# =====================================================================================
add("wrong_number", "bank", "en", "What interest rate does Sahyadri Bank pay on a 2-year fixed deposit?",
    ["B_IN_FD"],
    [("Sahyadri Bank pays 7.20% p.a. on a fixed deposit of 2 years [S1].", WN,
      "2 years to less than 3 years earns 7.25% p.a., not 7.20%"),
     ("Senior citizens get an extra 0.50% p.a. on top of that [S1].", S,
      "additional 0.50% p.a. for senior citizens on all tenures")],
    ["7.25%", "7.25"], ["7.10%", "7.00%", "7.20%"])

add("wrong_number", "bank", "en", "What's the penalty if I break a ₹3 lakh FD early?",
    ["B_IN_FD_PREM"],
    [("For a ₹3 lakh deposit the penalty is 0.75% below the applicable rate [S1].", WN,
      "deposits up to ₹5 lakh carry a 0.50% penalty, not 0.75%"),
     ("The money reaches your savings account within 2 working days [S1].", S,
      "proceeds credited to linked savings account within 2 working days")],
    ["0.50%", "0.5%"], ["1.00%", "0.75%"])

add("wrong_number", "bank", "en", "What minimum balance do I need at a Sahyadri metro branch?",
    ["B_IN_SAV"],
    [("Metro and urban branches require an average monthly balance of ₹10,000 [S1].", S,
      "AMB Rs. 10,000 for metro and urban branches"),
     ("If you fall short, the charge can be up to ₹500 a month plus GST [S1].", WN,
      "metro shortfall charge is up to Rs. 600 per month plus GST")],
    ["Rs. 10,000", "₹10,000", "10,000", "10000"], ["Rs. 5,000", "Rs. 2,500"])

add("wrong_number", "bank", "en", "What's the finance charge on a Sahyadri Gold credit card?",
    ["B_IN_CARD"],
    [("Finance charges on the Gold card are 3.5% per month [S1].", WN,
      "finance charges on all cards are 3.6% per month; 3.5% is the forex markup"),
     ("That works out to 43.2% per annum [S1].", S, "source: 43.2% per annum")],
    ["3.6%", "3.6", "43.2%"], ["3.5%"])

add("wrong_number", "bank", "en", "How much money can I send to a beneficiary I have just added?",
    ["B_IN_TRANSFER"],
    [("A newly added beneficiary can receive at most ₹50,000 in the first 12 hours [S1].", WN,
      "limit applies to the first 24 hours, not 12")],
    ["₹50,000", "50,000", "24 hours"], ["12 hours"])

add("wrong_number", "bank", "en", "How many free locker visits do I get at Sahyadri Bank?",
    ["B_IN_LOCKER"],
    [("You can access your locker 12 times a year without charge [S1].", S,
      "up to 12 times a year free of charge"),
     ("Each extra visit costs ₹150 [S1].", WN, "each additional visit costs ₹100")],
    ["12"], [])

add("wrong_number", "bank", "en", "What is the daily ATM withdrawal limit on the Sahyadri Classic debit card?",
    ["B_IN_DEBIT"],
    [("The Classic debit card lets you withdraw up to ₹25,000 a day at ATMs [S1].", WN,
      "Classic daily ATM limit is ₹40,000")],
    ["₹40,000", "40,000", "40000"], ["₹1,00,000", "₹25,000"])

add("wrong_number", "bank", "en", "What's the longest tenure I can get on a Sahyadri home loan?",
    ["B_IN_HOMELOAN"],
    [("Home loans can run for up to 25 years or until you turn 70, whichever comes first [S1].", WN,
      "maximum tenure is 30 years, not 25"),
     ("There is no prepayment charge on floating-rate loans for individuals [S1].", S,
      "no prepayment charge on floating-rate loans taken by individuals")],
    ["30 years"], ["25 years"])

add("wrong_number", "bank", "en", "How much does the Nordhaven Plus account cost?",
    ["B_EU_PACK"],
    [("The Plus package costs €8.95 a year [S1].", WN,
      "€8.95 is a monthly fee, not yearly (wrong period/unit)")],
    ["€8.95", "8.95"], ["€4.50", "€14.50"])

add("wrong_number", "bank", "en", "What interest do I pay if I go past my Nordhaven overdraft limit?",
    ["B_EU_OVERDRAFT"],
    [("Spending beyond your arranged limit costs 13.25% a year [S1].", WN,
      "unarranged overdraft costs 13.75% a year"),
     ("Interest is calculated daily and charged quarterly [S1].", S, "stated verbatim")],
    ["13.75%", "13.75"], ["9.75%"])

add("wrong_number", "bank", "en", "What's the cut-off time for a same-day SEPA transfer at Nordhaven?",
    ["B_EU_TRANSFER"],
    [("SEPA transfers received by 16:00 on a business day are executed the same day [S1].", WN,
      "cut-off is 15:00, not 16:00")],
    ["15:00", "3 pm", "3 p.m."], ["20:00", "16:00"])

add("wrong_number", "bank", "en", "What's the minimum amount for a Nordhaven fixed-term deposit?",
    ["B_EU_DEPOSIT"],
    [("You can open a fixed-term deposit from €1,000 [S1].", WN, "minimum is €5,000"),
     ("Deposits are covered by the statutory guarantee up to €100,000 per customer [S1].", S,
      "statutory deposit guarantee up to €100,000 per customer")],
    ["€5,000", "5,000", "5000"], ["€500,000", "€1,000"])

add("wrong_number", "bank", "en", "What does my Nordhaven Basic card cost when I use it outside the eurozone?",
    ["B_EU_CARDS"],
    [("Card payments in other currencies cost 1.75% on Basic accounts [S1].", S,
      "foreign currency fee 1.75% on Basic"),
     ("Withdrawals outside the eurozone cost 1.75% plus €2.50 each [S1].", WN,
      "Basic pays 1.75% plus €3.50 per withdrawal outside the eurozone")],
    ["1.75%", "€3.50"], ["0%", "€2.00"])

add("wrong_number", "bank", "es",
    "¿Qué rentabilidad tiene el Depósito Meridiano a 12 meses y hasta cuándo se puede contratar?",
    ["ES_BANK_DEP"],
    [("El Depósito Meridiano a 12 meses ofrece un 2,60 % TAE [S1].", S, "2,60 % TAE a 12 meses"),
     ("La oferta es válida para contrataciones hasta el 31 de julio de 2026 [S1].", WN,
      "la oferta es válida hasta el 30 de junio de 2026")],
    ["2,60 %", "2,60", "30 de junio de 2026"], ["2,25 %", "2,40 %", "31 de julio"])

add("wrong_number", "bank", "es", "¿Cuánto cuesta la tarjeta de débito de la Cuenta Nómina?",
    ["ES_BANK_CUENTA"],
    [("La tarjeta de débito es gratuita el primer año [S1].", S, "gratuita el primer año"),
     ("Después cuesta 30 € al año, salvo que hagas al menos 3 compras al mes [S1].", WN,
      "a partir del segundo año cuesta 35 € anuales")],
    ["35 €", "35"], ["8 €", "30 €"])

add("wrong_number", "shop", "en", "How long do I have to return electronics to Brightcart, and how fast is the refund?",
    ["SHOP_RET"],
    [("Electronics must be returned within 14 days [S1].", S, "electronics within 14 days"),
     ("Once Brightcart receives the return, the refund is processed within 10 working days [S1].", WN,
      "refunds processed within 5 working days; 10 is the upper bound of bank timing (3 to 10 days)")],
    ["14 days", "5 working days"], ["30 days"])

add("wrong_number", "shop", "en", "What's the latest I can order from Brightcart for next-day delivery?",
    ["SHOP_DEL"],
    [("Order by 6 pm Monday to Friday for next-day delivery [S1].", WN,
      "cut-off is 16:00 (4 pm), not 6 pm"),
     ("Next-day delivery costs £5.99 [S1].", S, "next-day £5.99")],
    ["16:00", "4 pm"], ["6 pm", "18:00"])

add("wrong_number", "shop", "en", "How long will Brightcart hold my Click & Collect order?",
    ["SHOP_DEL"],
    [("Click & Collect orders are ready from 2 pm the next day and are held for 14 days [S1].", WN,
      "orders are held for 7 days; 14 days is the nominated-day booking horizon")],
    ["7 days"], ["14 days"])

add("wrong_number", "shop", "en", "How much is ExtraCare for a £450 TV?",
    ["SHOP_WARR"],
    [("For a product priced between £200.01 and £600, ExtraCare costs £49 [S1].", WN,
      "the £200.01-£600 band costs £59"),
     ("It extends cover to 3 years in total, including accidental damage [S1].", S,
      "3 years in total, includes accidental damage")],
    ["£59", "59"], ["£29", "£99", "£49"])

add("wrong_number", "shop", "en", "How long do Brightcart Rewards points last?",
    ["SHOP_LOYAL"],
    [("Points expire 12 months after they were earned [S1].", WN, "points expire after 24 months"),
     ("Every 500 points can be turned into a £5 voucher [S1].", S, "stated verbatim")],
    ["24 months", "2 years"], ["3 months", "12 months"])

add("wrong_number", "shop", "en", "Can I replace a lost Brightcart gift card?",
    ["SHOP_GIFT"],
    [("Lost gift cards can be replaced if you have the receipt [S1].", S, "stated"),
     ("The replacement fee is €2.50 [S1].", WN, "fee is £2.50 - wrong currency")],
    ["£2.50", "2.50"], ["€2.50"])

add("wrong_number", "shop", "es", "¿Hasta qué hora puedo pedir en TiendaSol para recibirlo en 24 horas?",
    ["ES_SHOP_ENV"],
    [("Para recibir el pedido en 24 horas con el envío exprés, debes hacerlo antes de las 16:00, de lunes a viernes [S1].",
      WN, "la hora límite es las 14:00"),
     ("El envío exprés cuesta 7,95 € [S1].", S, "envío exprés 7,95 €")],
    ["14:00", "las 2 de la tarde", "las dos de la tarde"], ["16:00"])

add("wrong_number", "textbook", "en", "In the Ziegler-Nichols ultimate-gain method, what is Kp set to?",
    ["TX_PID"],
    [("The Ziegler-Nichols ultimate-gain method sets Kp to 0.45 Ku [S1].", WN,
      "source gives Kp = 0.6 Ku")],
    ["0.6 Ku", "0.6"], ["0.45", "0.5", "0.125"])

add("wrong_number", "textbook", "en", "What is the usable range of the HC-SR04 ultrasonic sensor?",
    ["TX_SENS"],
    [("The HC-SR04 works from about 2 cm to 40 cm [S1].", WN, "upper limit is 400 cm, not 40 cm"),
     ("It uses a 40 kHz pulse [S1].", S, "40 kHz pulse")],
    ["400 cm", "4 m"], ["80 cm", "12 m", "40 cm"])

add("wrong_number", "textbook", "en", "How often does a hobby servo expect a control pulse, and how much current does it draw when stalled?",
    ["TX_SERVO"],
    [("A standard hobby servo expects a pulse every 20 ms, which is 50 Hz [S1].", S, "20 ms (50 Hz)"),
     ("A 1.5 ms pulse centres the shaft [S1].", S, "1.5 ms centres the output shaft"),
     ("Many servos stall at around 1.2 A at 5 V [S1].", WN,
      "stall current 1.2 A is given at 6 V; 5 V is the microcontroller pin")],
    ["20 ms", "50 Hz", "1.2 A"], [])

add("wrong_number", "textbook", "en", "How fast does the example robot move if the right wheel turns at 10 rad/s and the left at 4 rad/s?",
    ["TX_KIN"],
    [("With the right wheel at 10 rad/s and the left at 4 rad/s, the example robot moves at 0.35 m/s [S1].",
      S, "stated in the worked example"),
     ("It turns at 2 rad/s [S1].", WN, "turning rate is 1 rad/s")],
    ["0.35 m/s", "0.35"], ["0.5 m/s"])

add("wrong_number", "textbook", "en", "How many counts per revolution does a 500-line encoder give with 4x decoding?",
    ["TX_ENC"],
    [("A 500-line encoder gives 2,000 counts per revolution with 4× decoding [S1].", S, "stated"),
     ("With a 30:1 gearbox, one wheel revolution is 6,000 counts [S1].", WN,
      "one wheel revolution is 60,000 counts")],
    ["2,000", "2000"], ["500", "60,000"])

add("wrong_number", "textbook", "en", "How much orientation error does a gyroscope bias of 0.1 deg/s cause?",
    ["TX_IMU"],
    [("A gyroscope bias of 0.1 deg/s produces 6 degrees of error after one hour [S1].", WN,
      "6 degrees after one minute, not one hour")],
    ["6 degrees", "one minute"], ["one hour"])

add("wrong_number", "textbook", "en", "What voltage is a 4S LiPo pack, and how low can the cells go?",
    ["TX_BATT"],
    [("A 4S LiPo pack has a nominal voltage of 14.8 V [S1].", S, "stated"),
     ("Cells should never be discharged below 3.3 V [S1].", WN, "minimum is 3.0 V")],
    ["14.8 V", "14.8", "3.0 V"], ["3.7 V", "4.2 V", "3.3 V"])

add("wrong_number", "textbook", "es", "¿Cuánta corriente puede dar una batería LiPo de 2.200 mAh y 25C?",
    ["ES_TX_BAT"],
    [("Una batería de 2.200 mAh con tasa de 25C puede entregar hasta 50 A de forma continua [S1].", WN,
      "el texto indica 55 A")],
    ["55 A", "55"], ["50 A"])

# =====================================================================================
# 2. WRONG ENTITY / SWAPPED PAIR (20)
# =====================================================================================
add("wrong_entity", "bank", "en", "What's the penalty if I close a ₹3 lakh Sahyadri FD before maturity?",
    ["B_IN_FD_PREM"],
    [("For a ₹3 lakh deposit, the penalty is 1.00% below the applicable rate [S1].", WE,
      "1.00% is the penalty for deposits above ₹5 lakh; up to ₹5 lakh it is 0.50%"),
     ("No interest is paid if the deposit is closed within 7 days of opening [S1].", S, "stated")],
    ["0.50%", "0.5%"], ["1.00%", "1%"])

add("wrong_entity", "bank", "en", "What's the annual fee on the Sahyadri Gold credit card?",
    ["B_IN_CARD"],
    [("The Gold card has an annual fee of ₹4,999 [S1].", WE, "₹4,999 is the Platinum fee; Gold is ₹1,499"),
     ("It is waived if you spend more than ₹2,00,000 in a year [S1].", S,
      "Gold fee waived on annual spends above ₹2,00,000")],
    ["₹1,499", "1,499", "1499"], ["₹499", "₹4,999"])

add("wrong_entity", "bank", "en", "What interest does Sahyadri Bank pay on the part of my savings balance above ₹1 lakh?",
    ["B_IN_SAV"],
    [("Balances up to ₹1 lakh earn 3.00% p.a., and the portion above ₹1 lakh earns 2.70% p.a. [S1].", WE,
      "rates swapped: up to ₹1 lakh 2.70%, above ₹1 lakh 3.00%")],
    ["3.00%", "3%"], ["2.70%"])

add("wrong_entity", "bank", "en", "How much does a medium locker cost at a Sahyadri metro branch?",
    ["B_IN_LOCKER"],
    [("A medium locker at a metro branch costs ₹4,000 a year [S1].", WE,
      "₹4,000 is the rural/semi-urban price; metro and urban pay ₹7,000")],
    ["₹7,000", "7,000", "7000"], ["₹4,000", "₹3,500"])

add("wrong_entity", "bank", "en", "How many free transactions do I get at other banks' ATMs in a metro city?",
    ["B_IN_DEBIT"],
    [("In the six metro cities you get 5 free transactions a month at other banks' ATMs [S1].", WE,
      "5 applies outside the metro cities (and at own ATMs); metro cities get 3"),
     ("Beyond that, each cash withdrawal costs ₹21 plus GST [S1].", S, "₹21 plus GST")],
    ["3"], ["5"])

add("wrong_entity", "bank", "en", "What does the Nordhaven Premium package cost per month?",
    ["B_EU_PACK"],
    [("The Premium package costs €8.95 a month and includes a metal credit card [S1].", WE,
      "€8.95 is the Plus price; Premium is €14.50")],
    ["€14.50", "14.50"], ["€4.50", "€8.95"])

add("wrong_entity", "bank", "en", "What rate does a 24-month Nordhaven fixed-term deposit pay?",
    ["B_EU_DEPOSIT"],
    [("A 24-month deposit pays 2.75% a year [S1].", WE,
      "2.75% is the 12-month rate; 24 months pays 2.60%"),
     ("Interest on terms longer than 12 months is paid annually [S1].", S, "paid annually for longer terms")],
    ["2.60%", "2.6%"], ["2.75%", "2.50%"])

add("wrong_entity", "bank", "en", "Do SEPA Instant transfers cost anything on the Nordhaven Plus package?",
    ["B_EU_TRANSFER"],
    [("SEPA Instant transfers cost €0.50 each in the Plus package [S1].", WE,
      "€0.50 applies to Basic; Plus and Premium pay nothing"),
     ("They arrive within 10 seconds, around the clock [S1].", S, "10 seconds, 24 hours a day, 365 days")],
    ["nothing", "free", "no charge"], ["€0.50"])

add("wrong_entity", "bank", "en", "What's the interest rate on a Nordhaven arranged overdraft?",
    ["B_EU_OVERDRAFT"],
    [("Arranged overdrafts cost 13.75% a year, while going beyond your limit costs 9.75% [S1].", WE,
      "rates swapped: arranged 9.75%, unarranged 13.75%")],
    ["9.75%", "9.75"], ["13.75%"])

add("wrong_entity", "bank", "es", "¿Qué TIN tiene el Préstamo Personal Meridiano si no domicilio la nómina?",
    ["ES_BANK_PREST"],
    [("Sin nómina domiciliada, el TIN es del 6,95 % [S1].", WE,
      "6,95 % es el TIN con nómina; sin nómina es 8,45 %"),
     ("La comisión de apertura es del 1,5 %, con un mínimo de 60 € [S1].", S, "1,5 %, mínimo 60 €")],
    ["8,45 %", "8,45"], ["6,95 %", "7,42 %"])

add("wrong_entity", "shop", "en", "How much is Brightcart ExtraCare on a £150 kettle?",
    ["SHOP_WARR"],
    [("For products priced up to £200, ExtraCare costs £99 [S1].", WE,
      "£99 is for products above £600; up to £200 costs £29")],
    ["£29", "29"], ["£59", "£99"])

add("wrong_entity", "shop", "en", "How much is Saturday delivery from Brightcart?",
    ["SHOP_DEL"],
    [("Saturday delivery costs £6.99 for orders placed by 16:00 on Friday [S1].", WE,
      "£6.99 is nominated-day delivery; Saturday is £7.99")],
    ["£7.99", "7.99"], ["£6.99", "£5.99"])

add("wrong_entity", "shop", "en", "How many Rewards points do Brightcart Gold members earn online?",
    ["SHOP_LOYAL"],
    [("Gold members earn 2 points per £1 spent online [S1].", WE,
      "2 points per £1 is for in-store Tuesdays; Gold members earn 1.5 online"),
     ("They also get free next-day delivery [S1].", S, "Gold members get free next-day delivery")],
    ["1.5 points", "1.5"], ["1 point", "2 points"])

add("wrong_entity", "shop", "en", "How long do I have to return an unopened video game to Brightcart?",
    ["SHOP_RET"],
    [("Unopened games must be returned within 14 days [S1].", WE,
      "14 days is the electronics window; unopened games have 30 days")],
    ["30 days"], ["14 days"])

add("wrong_entity", "shop", "es", "¿Cuál es el plazo para devolver un artículo de electrónica en TiendaSol?",
    ["ES_SHOP_DEV"],
    [("Los artículos de electrónica se pueden devolver en un plazo de 30 días naturales, siempre que estén precintados [S1].",
      WE, "30 días es el plazo general; electrónica tiene 15 días")],
    ["15 días"], ["30 días", "14 días"])

add("wrong_entity", "textbook", "en", "What range does the Sharp GP2Y0A21 sensor cover?",
    ["TX_SENS"],
    [("The Sharp GP2Y0A21 covers 0.15 m to 12 m [S1].", WE,
      "0.15-12 m is the RPLIDAR A1 range; the Sharp covers 10-80 cm")],
    ["10 cm to 80 cm", "80 cm"], ["12 m", "400 cm", "0.15 m"])

add("wrong_entity", "textbook", "en", "How does a complementary filter weight the gyroscope and the accelerometer?",
    ["TX_IMU"],
    [("A complementary filter typically weights the accelerometer by 0.98 and the gyroscope by 0.02 [S1].", WE,
      "weights swapped: gyroscope 0.98, accelerometer 0.02"),
     ("It usually runs at a 100 Hz update rate [S1].", S, "100 Hz update rate")],
    ["gyroscope by 0.98"], ["accelerometer by 0.98"])

add("wrong_entity", "textbook", "en", "What is the nominal voltage of a LiPo cell?",
    ["TX_BATT"],
    [("LiPo cells have a nominal voltage of 4.2 V and are fully charged at 3.7 V [S1].", WE,
      "swapped: nominal 3.7 V, fully charged 4.2 V")],
    ["3.7 V", "3.7"], ["4.2 V", "3.0 V"])

add("wrong_entity", "textbook", "en", "How much does an MG996R servo weigh?",
    ["TX_ACT"],
    [("The MG996R weighs 9 g [S1].", WE, "9 g is the SG90; the MG996R weighs 55 g"),
     ("It delivers 11 kg·cm of torque at 6 V [S1].", S, "MG996R 11 kg·cm at 6 V")],
    ["55 g"], ["9 g", "57.2 g"])

add("wrong_entity", "textbook", "es", "¿Qué alcance tiene el sensor Sharp GP2Y0A21?",
    ["ES_TX_SENS"],
    [("El Sharp GP2Y0A21 mide distancias de 2 cm a 4 m [S1].", WE,
      "2 cm a 4 m es el alcance del HC-SR04; el Sharp mide de 10 a 80 cm")],
    ["10 a 80 cm", "80 cm"], ["4 m", "12 m"])

# =====================================================================================
# 3. UNCITED sentence added to otherwise correct reply (15)
# =====================================================================================
add("uncited", "bank", "en", "Do senior citizens get a higher FD rate at Sahyadri Bank?",
    ["B_IN_FD"],
    [("Yes, customers aged 60 and above receive an additional 0.50% p.a. on all tenures [S1].", S,
      "stated"),
     ("Senior citizens can also submit Form 15H to avoid TDS on their interest.", UC,
      "no citation; TDS / Form 15H not in any source")],
    ["0.50%", "0.5%"], [])

add("uncited", "bank", "en", "Can I make a NEFT transfer from Sahyadri Bank on a Sunday?",
    ["B_IN_TRANSFER"],
    [("Yes, NEFT is available 24x7, including holidays [S1].", S, "NEFT available 24x7 including holidays"),
     ("NEFT is operated by the Reserve Bank of India.", UC, "general knowledge, no citation, not in source")],
    ["24x7"], [])

add("uncited", "bank", "en", "What's the processing fee on a Sahyadri home loan?",
    ["B_IN_HOMELOAN"],
    [("The processing fee is 0.35% of the loan amount [S1].", S, "stated"),
     ("It is subject to a minimum of ₹2,000 and a maximum of ₹10,000 [S1].", S, "stated"),
     ("The fee is refunded if your loan is not sanctioned.", UC, "invented, no citation")],
    ["0.35%"], ["0.15%"])

add("uncited", "bank", "en", "Can I end my Nordhaven fixed-term deposit early?",
    ["B_EU_DEPOSIT"],
    [("No, the deposit cannot be terminated early [S1].", S, "stated"),
     ("In an emergency, most banks will let you borrow against a fixed-term deposit instead.", UC,
      "general claim, no citation, not in source")],
    ["cannot"], [])

add("uncited", "bank", "en", "Is the Nordhaven Plus package free for students?",
    ["B_EU_PACK"],
    [("Students and customers under 26 get the Plus package free of charge until their 26th birthday [S1].",
      S, "stated"),
     ("You will need to show a valid student card when opening the account.", UC, "invented, no citation")],
    ["free", "26"], ["€8.95"])

add("uncited", "shop", "en", "Does Brightcart deliver to Jersey?",
    ["SHOP_DEL"],
    [("No, Brightcart does not currently deliver to the Channel Islands [S1].", S, "stated"),
     ("Jersey is the largest of the Channel Islands.", UC, "general knowledge, no citation")],
    ["Channel Islands"], [])

add("uncited", "shop", "en", "How long is a Brightcart gift card valid?",
    ["SHOP_GIFT"],
    [("Gift cards are valid for 24 months from the date of purchase or last use [S1].", S, "stated"),
     ("You can top up a gift card online at any time.", UC, "invented; top-ups not mentioned")],
    ["24 months", "2 years"], [])

add("uncited", "shop", "en", "Can I cancel my Brightcart order after it has shipped?",
    ["SHOP_CANCEL"],
    [("Yes, you have 14 days from delivery to cancel most online orders, even after dispatch [S1].", S,
      "stated"),
     ("Refunds go back to the original payment method within 14 days [S1].", S, "stated"),
     ("Customer service is open from 8 am to 8 pm every day.", UC, "invented opening hours, no citation")],
    ["14 days"], ["48 hours"])

add("uncited", "shop", "en", "Will Brightcart match a price from an Amazon Marketplace seller?",
    ["SHOP_PRICE"],
    [("No, the price promise does not cover marketplace sellers [S1].", S, "stated"),
     ("Amazon was founded in 1994 as an online bookstore.", UC, "general knowledge, no citation")],
    ["marketplace"], [])

add("uncited", "textbook", "en", "What causes integrator windup in a PID controller?",
    ["TX_PID"],
    [("The integral term can cause integrator windup when the actuator saturates [S1].", S, "stated"),
     ("A common fix is to clamp the integral to the actuator limits [S1].", S, "stated"),
     ("The PID controller was first analysed by Nicolas Minorsky in 1922.", UC,
      "historical fact, not in source, no citation")],
    ["saturates", "saturation"], [])

add("uncited", "textbook", "en", "Can a time-of-flight camera be used in bright sunlight?",
    ["TX_SENS"],
    [("Time-of-flight cameras are disturbed by strong sunlight [S1].", S, "stated"),
     ("They provide depth images at up to 30 frames per second [S1].", S, "stated"),
     ("Sunlight contains strong infrared radiation at the wavelengths these cameras use.", UC,
      "general physics, no citation, not in source")],
    ["sunlight"], [])

add("uncited", "textbook", "en", "Can a differential-drive robot move sideways?",
    ["TX_KIN"],
    [("No, differential drive is non-holonomic, so the robot cannot move sideways directly [S1].", S,
      "stated"),
     ("Mecanum wheels are a common way to get sideways motion.", UC, "general knowledge, no citation")],
    ["cannot", "non-holonomic"], [])

add("uncited", "textbook", "en", "How many DH parameters does a six-axis arm have?",
    ["TX_DH"],
    [("A six-axis arm has 24 DH parameters, 6 of which are joint variables [S1].", S, "stated"),
     ("The DH convention was introduced by Jacques Denavit and Richard Hartenberg in 1955.", UC,
      "historical fact, not in source, no citation")],
    ["24"], ["6"])

add("uncited", "bank", "es", "¿Cuál es el plazo máximo de la Hipoteca Fija Meridiano?",
    ["ES_BANK_HIPOTECA"],
    [("El plazo máximo es de 30 años [S1].", S, "plazo máximo de 30 años"),
     ("La edad del titular más el plazo no puede superar los 75 años [S1].", S, "literal"),
     ("El Euríbor es el índice de referencia más utilizado en las hipotecas variables en España.", UC,
      "conocimiento general, sin cita, no está en la fuente")],
    ["30 años"], ["75 años"])

add("uncited", "textbook", "es", "¿A qué frecuencia se ejecuta el lazo de control de una articulación en un brazo industrial?",
    ["ES_TX_PID"],
    [("En brazos industriales, el lazo de control de cada articulación suele ejecutarse a 1 kHz [S1].", S,
      "literal"),
     ("Los robots industriales modernos usan servomotores brushless con encoders absolutos.", UC,
      "sin cita y no está en la fuente")],
    ["1 kHz", "cada milisegundo"], ["100 Hz"])

# =====================================================================================
# 4. UNSUPPORTED cited claim (10)
# =====================================================================================
add("unsupported", "bank", "en", "Can I get a loan against my Sahyadri FD instead of breaking it?",
    ["B_IN_FD", "B_IN_FD_PREM"],
    [("Deposits can be closed before maturity at any branch or through net banking [S2].", S, "stated in S2"),
     ("You can also take a loan of up to 90% of the deposit amount instead of closing it [S1].", UN,
      "no source mentions loans against deposits")],
    [], [])

add("unsupported", "bank", "en", "Does my Sahyadri savings account come with a free chequebook?",
    ["B_IN_SAV"],
    [("Yes, you get 25 free cheque leaves per year [S1].", UN, "source says nothing about cheque books")],
    [], [])

add("unsupported", "bank", "en", "Will a Nordhaven arranged overdraft affect my credit score?",
    ["B_EU_OVERDRAFT"],
    [("An arranged overdraft is reported to the credit bureau but does not lower your score as long as you stay within the limit [S1].",
      UN, "credit reporting is not mentioned"),
     ("The debit interest rate on arranged overdrafts is 9.75% a year [S1].", S, "stated")],
    [], [])

add("unsupported", "bank", "en", "Can I add my Nordhaven Basic debit card to Apple Pay?",
    ["B_EU_CARDS"],
    [("Yes, the Basic debit card can be added to Apple Pay and Google Pay at no extra cost [S1].", UN,
      "mobile wallets are not mentioned")],
    [], [])

add("unsupported", "shop", "en", "Can I return a Brightcart online order to a store instead of posting it?",
    ["SHOP_RET"],
    [("Yes, you can return online orders to any Brightcart store free of charge [S1].", UN,
      "source only describes returns by post")],
    [], [])

add("unsupported", "shop", "en", "Does Brightcart ExtraCare cover theft?",
    ["SHOP_WARR"],
    [("ExtraCare includes accidental damage [S1].", S, "stated"),
     ("It also covers theft and loss if you report it to the police within 48 hours [S1].", UN,
      "theft/loss cover is not mentioned")],
    ["accidental damage"], [])

add("unsupported", "textbook", "en", "How should I choose the sample rate for a PID loop?",
    ["TX_PID"],
    [("The sample rate should be at least 20 times the closed-loop bandwidth [S1].", UN,
      "source gives no sample-rate rule (its 10x bandwidth figure is the derivative filter cutoff)"),
     ("Joint controllers in industrial arms typically run at 1 kHz [S1].", S, "stated")],
    ["1 kHz"], [])

add("unsupported", "textbook", "en", "Can the RPLIDAR A1 be used outdoors?",
    ["TX_SENS"],
    [("The RPLIDAR A1 is rated IP54, so it can be used outdoors in light rain [S1].", UN,
      "no ingress rating or outdoor use stated")],
    [], [])

add("unsupported", "textbook", "en", "Is A* faster than Dijkstra's algorithm?",
    ["TX_PATH"],
    [("A* with an admissible heuristic is guaranteed to find an optimal path [S1].", S,
      "if h never overestimates, A* is optimal"),
     ("On typical grid maps A* expands about 90% fewer nodes than Dijkstra's algorithm [S1].", UN,
      "no node-count comparison in source")],
    [], [])

add("unsupported", "shop", "es", "¿La garantía de TiendaSol cubre la pantalla rota de mi móvil?",
    ["ES_SHOP_GAR"],
    [("La garantía no cubre daños por caídas, golpes o líquidos [S1].", S, "literal"),
     ("Sin embargo, puedes contratar un seguro de pantalla por 4,99 € al mes [S1].", UN,
      "la fuente no menciona ningún seguro")],
    ["no cubre"], [])

# =====================================================================================
# 5. WRONG CITATION (10)
# =====================================================================================
add("wrong_citation", "bank", "en", "What's the 5-year FD rate, and can I withdraw a tax-saver FD early?",
    ["B_IN_FD", "B_IN_FD_PREM"],
    [("A 5-year fixed deposit earns 7.00% p.a. [S1].", S, "3 years to 5 years: 7.00% p.a."),
     ("Tax-saver deposits have a lock-in of 5 years and cannot be withdrawn early [S1].", WC,
      "stated in S2 (premature withdrawal), not S1")],
    ["7.00%", "5 years"], ["6.75%"])

add("wrong_citation", "bank", "en", "What is the IMPS limit, and how much can I spend per day with a Sahyadri Platinum debit card?",
    ["B_IN_DEBIT", "B_IN_TRANSFER"],
    [("IMPS transfers have a per-transaction limit of ₹5 lakh [S1].", WC, "IMPS limit is in S2, not S1"),
     ("The Platinum debit card allows purchases of up to ₹2,50,000 a day [S1].", S, "stated in S1")],
    ["₹5 lakh", "₹2,50,000"], ["₹1,00,000"])

add("wrong_citation", "bank", "en", "Do I pay a foreign currency fee on card payments with the Nordhaven Plus package?",
    ["B_EU_PACK", "B_EU_CARDS"],
    [("Plus and Premium customers pay no foreign currency fee on card payments [S1].", WC,
      "0% fee for Plus/Premium is stated in S2 (cards abroad), not S1"),
     ("The Plus package costs €8.95 a month [S1].", S, "stated in S1")],
    ["0%", "no foreign currency fee"], ["1.75%"])

add("wrong_citation", "bank", "en", "How quickly does a SEPA Instant transfer arrive, and is my Nordhaven deposit protected?",
    ["B_EU_TRANSFER", "B_EU_DEPOSIT"],
    [("SEPA Instant transfers arrive within 10 seconds [S2].", WC, "stated in S1, not S2"),
     ("Deposits are protected up to €100,000 per customer [S2].", S, "deposit guarantee in S2")],
    ["10 seconds", "€100,000"], [])

add("wrong_citation", "shop", "en", "Is return postage free, and what does standard delivery cost at Brightcart?",
    ["SHOP_RET", "SHOP_DEL"],
    [("Returns by post are free for orders over £40 [S1].", S, "stated in S1"),
     ("Standard delivery costs £3.99 and is free on orders of £40 or more [S1].", WC,
      "delivery prices are in S2, not S1")],
    ["£3.99", "£40"], ["£3.95"])

add("wrong_citation", "shop", "en", "Can I use my Brightcart Rewards voucher to buy a gift card?",
    ["SHOP_LOYAL", "SHOP_GIFT"],
    [("No, Rewards vouchers cannot be used on gift cards [S2].", WC,
      "the restriction is in S1 (Rewards), S2 says nothing about vouchers"),
     ("Vouchers are valid for 3 months [S1].", S, "stated in S1")],
    ["cannot"], [])

add("wrong_citation", "shop", "en", "Can I cancel Brightcart ExtraCare after buying it?",
    ["SHOP_WARR", "SHOP_CANCEL"],
    [("You can cancel ExtraCare within 45 days for a full refund [S2].", WC,
      "45-day ExtraCare cancellation is in S1, not S2")],
    ["45 days"], ["14 days", "30 days"])

add("wrong_citation", "textbook", "en", "How heavy is an SG90 servo, and what pulse width centres a hobby servo?",
    ["TX_SERVO", "TX_ACT"],
    [("The SG90 micro servo weighs 9 g [S1].", WC, "SG90 weight is in S2, not S1"),
     ("A 1.5 ms pulse centres a standard hobby servo's output shaft [S1].", S, "stated in S1")],
    ["9 g", "1.5 ms"], ["55 g"])

add("wrong_citation", "textbook", "en", "How much does wheel odometry drift?",
    ["TX_ENC", "TX_IMU"],
    [("Odometry typically drifts by 1-5% of the distance travelled [S2].", WC,
      "drift figure is in S1 (encoders), not S2 (IMU)"),
     ("That is why it is usually fused with an IMU or external landmarks [S1].", S, "stated in S1")],
    ["1-5%", "1–5%"], [])

add("wrong_citation", "bank", "es",
    "¿Cuánto cuesta una transferencia en oficina y cuál es la comisión de apertura del préstamo personal?",
    ["ES_BANK_CUENTA", "ES_BANK_PREST"],
    [("Las transferencias SEPA en oficina cuestan el 0,40 % del importe, con un mínimo de 3 € [S2].", WC,
      "está en S1 (Cuenta Nómina), no en S2"),
     ("La comisión de apertura del préstamo personal es del 1,5 % [S2].", S, "S2: 1,5 %")],
    ["0,40 %", "1,5 %"], [])

# =====================================================================================
# 6. PARTLY RIGHT: 2-3 sentences, exactly one wrong (15)
# =====================================================================================
add("partly_right", "bank", "en", "What are Sahyadri's FD rates for 1 year and for 3 years?",
    ["B_IN_FD"],
    [("A deposit of 1 year to less than 2 years earns 7.10% p.a. [S1].", S, "stated"),
     ("Deposits of 3 to 5 years earn 7.25% p.a. [S1].", WE, "7.25% is the 2-3 year band; 3-5 years is 7.00%"),
     ("The minimum deposit is Rs. 1,000 [S1].", S, "stated")],
    ["7.10%", "7.00%"], ["7.25%"])

add("partly_right", "bank", "en", "What fees apply to cash withdrawals on my Sahyadri Classic credit card?",
    ["B_IN_CARD"],
    [("Cash withdrawals cost 2.5% of the amount [S1].", S, "stated"),
     ("The minimum fee is ₹300 [S1].", WN, "minimum is ₹500"),
     ("The Classic card's annual fee of ₹499 is waived if you spend more than ₹1,00,000 a year [S1].", S,
      "waived if annual spends exceed ₹1,00,000")],
    ["2.5%", "₹500"], ["₹300"])

add("partly_right", "bank", "en", "Since when do the current Sahyadri FD rates apply, and what is the rate for 180 days to under a year?",
    ["B_IN_FD"],
    [("The current rates have applied since 1 September 2026 [S1].", WN, "effective date is 1 October 2026"),
     ("Deposits of 180 days to less than 1 year earn 6.00% p.a. [S1].", S, "stated")],
    ["1 October 2026", "6.00%"], ["1 September 2026", "5.25%"])

add("partly_right", "bank", "en", "What's included in the Nordhaven Plus package?",
    ["B_EU_PACK"],
    [("Plus adds a credit card and worldwide travel insurance for the account holder [S1].", S, "stated"),
     ("It also includes two free cash withdrawals a month outside the eurozone [S1].", S, "stated"),
     ("You can switch packages once per calendar year at no cost [S1].", WN,
      "once per calendar month, not year")],
    ["travel insurance", "two free cash withdrawals"], [])

add("partly_right", "bank", "en", "Can I get an arranged overdraft at Nordhaven, and how much?",
    ["B_EU_OVERDRAFT"],
    [("You need a regular monthly income of at least €1,200 [S1].", S, "stated"),
     ("You can borrow up to three times your net monthly income, to a maximum of €10,000 [S1].", S, "stated"),
     ("Approval usually takes one business day [S1].", UN, "approval time not mentioned")],
    ["€10,000", "three times"], [])

add("partly_right", "bank", "en", "What are the daily limits on my Nordhaven debit card?",
    ["B_EU_CARDS"],
    [("The daily withdrawal limit is €1,000 and the daily payment limit is €5,000 [S1].", S, "stated"),
     ("In the app you can raise them to €25,000 for withdrawals and €2,500 for payments [S1].", WE,
      "swapped: withdrawals up to €2,500, payments up to €25,000")],
    ["€1,000", "€5,000"], [])

add("partly_right", "shop", "en", "How long does a Brightcart refund take?",
    ["SHOP_RET"],
    [("Refunds are processed within 5 working days of receiving your return [S1].", S, "stated"),
     ("The money then reaches your card within 3 to 10 days, depending on your bank [S1].", S, "stated"),
     ("For postal returns on orders of £40 or less, a £4.95 fee is deducted from your refund [S1].", WN,
      "return fee is £3.95")],
    ["5 working days", "3 to 10 days"], [])

add("partly_right", "shop", "en", "Do Brightcart Gold members pay for next-day delivery?",
    ["SHOP_DEL", "SHOP_LOYAL"],
    [("Gold members get free next-day delivery [S2].", S, "stated in S2"),
     ("To become Gold, you need to spend at least £500 in a calendar year [S2].", WN,
      "Gold threshold is £1,000 a year"),
     ("For everyone else, next-day delivery costs £5.99 if ordered by 16:00 on a weekday [S1].", S,
      "£5.99 by 16:00 Monday to Friday")],
    ["free", "£1,000"], ["£500"])

add("partly_right", "shop", "en", "Can I cancel my made-to-measure sofa from Brightcart?",
    ["SHOP_CANCEL"],
    [("Made-to-measure furniture cannot be cancelled after 48 hours [S1].", S, "stated"),
     ("If a large item has already been delivered by the two-person team, a £25 collection charge applies unless it is faulty [S1].",
      S, "stated"),
     ("Made-to-measure items are usually delivered within 6 to 8 weeks.", UC,
      "invented lead time, no citation")],
    ["48 hours"], ["14 days"])

add("partly_right", "textbook", "en", "What does each term of a PID controller do?",
    ["TX_PID"],
    [("Increasing Kp reduces rise time but increases overshoot [S1].", S, "stated"),
     ("The integral term removes steady-state error [S1].", S, "stated"),
     ("The derivative term is usually low-pass filtered with a cutoff about 5 times the closed-loop bandwidth [S1].",
      WN, "cutoff about 10 times the closed-loop bandwidth")],
    ["overshoot", "steady-state error"], [])

add("partly_right", "textbook", "en", "How much current can a 5,000 mAh 20C LiPo pack deliver, and how should it be stored?",
    ["TX_BATT"],
    [("A 5,000 mAh pack rated 20C can supply 100 A [S1].", S, "stated"),
     ("It should normally be charged at 1C [S1].", S, "stated"),
     ("For storage, keep it at about 3.9 V per cell [S1].", WN, "storage voltage about 3.8 V per cell")],
    ["100 A", "3.8 V"], ["3.9 V", "4.2 V"])

add("partly_right", "textbook", "en", "Why can the PUMA 560's inverse kinematics be solved in closed form?",
    ["TX_DH", "TX_ACT"],
    [("The PUMA 560 has six revolute joints [S1].", S, "stated in S1"),
     ("Its last three axes intersect at a single point, forming a spherical wrist [S2].", WC,
      "stated in S1 (DH), S2 (actuators) does not mention it"),
     ("This allows the inverse kinematics to be solved in closed form [S1].", S, "stated in S1")],
    ["spherical wrist"], [])

add("partly_right", "bank", "es", "¿Qué tipo tiene la Hipoteca Fija Meridiano sin vinculaciones?",
    ["ES_BANK_HIPOTECA"],
    [("Con nómina domiciliada y seguro de hogar, el tipo es del 2,95 % TIN [S1].", S, "tipo bonificado 2,95 %"),
     ("Sin estas vinculaciones, el tipo sube al 3,65 % [S1].", S, "literal"),
     ("Se financia hasta el 80 % del valor de tasación para segunda residencia [S1].", WE,
      "80 % es para vivienda habitual; segunda residencia 70 %")],
    ["3,65 %", "3,65"], ["2,95 %"])

add("partly_right", "shop", "es", "¿La devolución por mensajería en TiendaSol tiene coste?",
    ["ES_SHOP_DEV", "ES_SHOP_ENV"],
    [("Si devuelves por mensajería, se descuentan 3,95 € del reembolso, salvo que el pedido supere los 50 € [S1].",
      S, "literal"),
     ("La devolución en tienda es gratuita [S1].", S, "literal"),
     ("El reembolso se hace en un máximo de 30 días desde que recibimos el artículo [S1].", WN,
      "el plazo de reembolso es de 14 días; 30 días es el plazo para devolver")],
    ["3,95 €", "3,95"], ["4,95 €"])

add("partly_right", "textbook", "es", "¿Cuántos micropasos por vuelta tiene un motor paso a paso con micropasos de 1/16?",
    ["ES_TX_MOT"],
    [("Los motores paso a paso más comunes tienen 200 pasos por vuelta, es decir, 1,8 grados por paso [S1].", S,
      "literal"),
     ("Con micropasos de 1/16 se obtienen 3.200 micropasos por vuelta [S1].", S, "literal"),
     ("Esto da una resolución de 0,1125 grados por micropaso.", UC,
      "cálculo correcto pero sin cita y no aparece en la fuente")],
    ["3.200", "3200"], ["200"])

# =====================================================================================
# 7. MONEY: reply about a computed records table, no citations (15)
# =====================================================================================
def rec(period, metric, cur, rows):
    return {"rows": [{"label": l, "amount": a, "currency": cur} for l, a in rows],
            "period": period, "metric": metric}


add("money", "money", "en", "How much did I spend on groceries and eating out in September?", [],
    [("You spent £412.80 on groceries in September.", S, "Groceries 412.80 GBP"),
     ("Eating out came to £168.45.", WN, "Eating out is 186.45 (digits transposed)")],
    ["412.80", "186.45"], ["168.45"],
    rec("September 2026", "spending by category", "GBP",
        [("Rent", "1150.00"), ("Groceries", "412.80"), ("Eating out", "186.45"), ("Transport", "142.20"),
         ("Utilities", "128.67"), ("Entertainment", "64.99")]))

add("money", "money", "en", "What was my biggest spending category in October?", [],
    [("Your biggest spending category in October was Shopping, at €264.30.", WE,
      "top category is Groceries (356.10); 264.30 is Shopping but Shopping is not the biggest"),
     ("You spent €356.10 on groceries.", S, "Groceries 356.10 EUR")],
    ["Groceries", "356.10"], ["Shopping"],
    rec("October 2026", "spending by category", "EUR",
        [("Groceries", "356.10"), ("Transport", "212.40"), ("Eating out", "198.75"), ("Shopping", "264.30"),
         ("Utilities", "97.50"), ("Health", "45.00")]))

add("money", "money", "en", "Where did I spend the most in August?", [],
    [("Your biggest merchant in August was Reliance Digital, where you spent ₹12,499.", S,
      "Reliance Digital 12499.00 is the largest"),
     ("BigBasket came next at ₹8,420.", S, "BigBasket 8420.00 is second")],
    ["Reliance Digital", "12,499"], ["BigBasket"],
    rec("August 2026", "spending by merchant", "INR",
        [("BigBasket", "8420.00"), ("Swiggy", "3265.50"), ("Amazon", "6190.00"), ("Uber", "1845.00"),
         ("Reliance Digital", "12499.00"), ("Zomato", "2310.75")]))

add("money", "money", "en", "Which month did I spend the most in the first half of 2026?", [],
    [("May was your highest-spending month, at £2,412.15.", S, "May 2412.15 is the maximum"),
     ("March was close behind at £2,305.90.", S, "March 2305.90, second highest"),
     ("Your lowest month was February, at £1,867.20.", WN, "February is 1876.20")],
    ["May", "2,412.15"], ["March"],
    rec("January-June 2026", "total spending by month", "GBP",
        [("January", "2140.35"), ("February", "1876.20"), ("March", "2305.90"), ("April", "1990.00"),
         ("May", "2412.15"), ("June", "2088.60")]))

add("money", "money", "en", "How much did I spend on insurance in September?", [],
    [("You spent €134.52 on insurance in September.", WE,
      "134.52 is Eating out; Insurance is 134.25")],
    ["134.25"], ["134.52"],
    rec("September 2026", "spending by category", "EUR",
        [("Groceries", "298.40"), ("Transport", "89.00"), ("Insurance", "134.25"), ("Eating out", "134.52"),
         ("Subscriptions", "42.97"), ("Clothing", "175.00")]))

add("money", "money", "en", "How much did I spend at Tesco and Amazon last month?", [],
    [("You spent £245.60 at Tesco.", S, "Tesco 245.60"),
     ("Amazon came to £145.27.", WN, "Amazon is 154.27")],
    ["245.60", "154.27"], ["145.27"],
    rec("November 2026", "spending by merchant", "GBP",
        [("Tesco", "245.60"), ("Sainsbury's", "118.35"), ("Trainline", "96.40"), ("Netflix", "10.99"),
         ("Amazon", "154.27"), ("Pret A Manger", "38.50")]))

add("money", "money", "en", "What was my top spending category in December?", [],
    [("Gifts was your top category in December.", WE, "top category is Travel (22800.00)"),
     ("You spent ₹22,800 on travel.", S, "Travel 22800.00")],
    ["Travel", "22,800"], ["Gifts"],
    rec("December 2026", "spending by category", "INR",
        [("Groceries", "14250.00"), ("Travel", "22800.00"), ("Gifts", "18640.00"), ("Dining", "9975.50"),
         ("Utilities", "4320.00"), ("Fuel", "6150.00")]))

add("money", "money", "es", "¿Cuánto gasté en supermercado y en restaurantes en marzo?", [],
    [("En marzo gastaste 324,60 € en supermercado.", S, "Supermercado 324.60"),
     ("En restaurantes gastaste 142,35 €.", S, "Restaurantes 142.35")],
    ["324,60", "142,35"], [],
    rec("marzo de 2026", "gasto por categoría", "EUR",
        [("Supermercado", "324.60"), ("Restaurantes", "142.35"), ("Transporte", "58.90"),
         ("Suministros", "112.48"), ("Ocio", "76.00"), ("Ropa", "129.99")]))

add("money", "money", "es", "¿En qué comercio gasté más en abril?", [],
    [("El comercio en el que más gastaste en abril fue El Corte Inglés, con 287,45 €.", WE,
      "287.45 es Mercadona, que es el comercio con más gasto"),
     ("En Amazon gastaste 163,20 €.", S, "Amazon 163.20")],
    ["Mercadona", "287,45"], ["El Corte Inglés"],
    rec("abril de 2026", "gasto por comercio", "EUR",
        [("Mercadona", "287.45"), ("Amazon", "163.20"), ("Repsol", "95.60"), ("Zara", "118.00"),
         ("Renfe", "64.30"), ("El Corte Inglés", "210.75")]))

add("money", "money", "en", "How much did I spend in August and in December?", [],
    [("You spent €1,985.10 in August.", S, "August 1985.10"),
     ("December was your biggest month at €2,246.80.", WN, "December is 2264.80 (it is the biggest)")],
    ["1,985.10", "2,264.80"], ["2,246.80"],
    rec("July-December 2025", "total spending by month", "EUR",
        [("July", "1620.40"), ("August", "1985.10"), ("September", "1410.75"), ("October", "1533.00"),
         ("November", "1702.25"), ("December", "2264.80")]))

add("money", "money", "en", "How much did I spend eating out in February?", [],
    [("In February you spent £118.60 on eating out.", WE, "118.60 is April; February is 96.85")],
    ["96.85"], ["118.60"],
    rec("January-April 2026", "eating out by month", "GBP",
        [("January", "142.30"), ("February", "96.85"), ("March", "173.40"), ("April", "118.60")]))

add("money", "money", "en", "Apart from rent, what was my biggest expense in October?", [],
    [("After rent, your largest category was Groceries at Rs. 9,480.25.", S,
      "Groceries 9480.25 is largest after Rent"),
     ("Shopping came next at ₹7,305.75.", S, "Shopping 7305.75 is next")],
    ["Groceries", "9,480.25"], ["Shopping"],
    rec("October 2026", "spending by category", "INR",
        [("Rent", "25000.00"), ("Groceries", "9480.25"), ("Electricity", "2135.00"),
         ("Mobile & internet", "1198.00"), ("Dining", "4760.50"), ("Shopping", "7305.75")]))

add("money", "money", "en", "How much did I spend on Uber and at Shell in July?", [],
    [("Uber cost you £78.90 and Shell £87.20 in July.", WE, "swapped: Uber 87.20, Shell 78.90")],
    ["87.20"], [],
    rec("July 2026", "spending by merchant", "GBP",
        [("Ocado", "312.44"), ("Uber", "87.20"), ("Deliveroo", "64.35"), ("Boots", "42.18"),
         ("Shell", "78.90"), ("John Lewis", "149.00")]))

add("money", "money", "en", "What did I spend on my phone and on the gym in May?", [],
    [("Your phone cost €25.00 in May.", S, "Phone 25.00"),
     ("The gym came to €35.", S, "Gym 35.00"),
     ("Groceries were your biggest category at €276.90.", S, "Groceries 276.90 is the largest")],
    ["25.00", "35"], [],
    rec("May 2026", "spending by category", "EUR",
        [("Groceries", "276.90"), ("Bike & transport", "45.00"), ("Insurance", "151.30"),
         ("Eating out", "98.60"), ("Phone", "25.00"), ("Gym", "35.00")]))

add("money", "money", "en", "Which was my most expensive month between April and September?", [],
    [("July was your most expensive month, at ₹61,340.25.", S, "July 61340.25 is the maximum"),
     ("Your cheapest month was May, at ₹45,990.", WE, "45990.00 is June, the cheapest month; May is 52675.40")],
    ["July", "61,340.25"], [],
    rec("April-September 2026", "total spending by month", "INR",
        [("April", "48210.00"), ("May", "52675.40"), ("June", "45990.00"), ("July", "61340.25"),
         ("August", "49805.60"), ("September", "53120.00")]))

# =====================================================================================
# 8. FULLY CORRECT, different surface forms (normalisation traps that must be accepted) (16)
# =====================================================================================
add("correct_normalised", "bank", "en", "What will I earn on a 3-year Sahyadri FD as a senior citizen?",
    ["B_IN_FD"],
    [("For a 3-year deposit the standard rate is 7 percent per annum [S1].", S,
      "3 years to 5 years: 7.00% p.a."),
     ("Senior citizens get an extra half a percent on top [S1].", S, "additional 0.50% p.a.")],
    ["7.00%", "7 percent", "0.50%"], ["7.25%"])

add("correct_normalised", "bank", "en", "What is the minimum balance for a Sahyadri semi-urban branch?",
    ["B_IN_SAV"],
    [("Semi-urban branches need an average monthly balance of ₹5000 [S1].", S, "Rs. 5,000 = ₹5000"),
     ("Rural branches need Rs 2,500 [S1].", S, "Rs. 2,500"),
     ("Basic Savings Bank Deposit accounts have no minimum balance at all [S1].", S, "stated")],
    ["Rs. 5,000", "5,000", "5000"], ["Rs. 10,000", "Rs. 2,500"])

add("correct_normalised", "bank", "en", "What LTV and rate apply to a small Sahyadri home loan for a salaried borrower with a good credit score?",
    ["B_IN_HOMELOAN"],
    [("Loans up to Rs 30 lakh can be up to ninety percent of the property value [S1].", S,
      "LTV capped at 90% for loans up to ₹30 lakh"),
     ("Salaried borrowers with a credit score of 800 or more get rates from 8.4% a year [S1].", S,
      "8.40% p.a. for scores of 800 or above")],
    ["90%", "8.40%", "8.4%"], ["80%", "8.75%"])

add("correct_normalised", "bank", "en", "Is there a limit on IMPS and a minimum amount for RTGS?",
    ["B_IN_TRANSFER"],
    [("IMPS has a per-transaction limit of Rs. 5,00,000 [S1].", S, "₹5 lakh = Rs. 5,00,000"),
     ("RTGS needs a minimum of two lakh rupees and has no upper limit [S1].", S,
      "RTGS for ₹2 lakh and above, no upper limit")],
    ["₹5 lakh", "5,00,000", "₹2 lakh"], ["₹50,000"])

add("correct_normalised", "bank", "en", "When do I need to submit a Nordhaven SEPA transfer for same-day execution?",
    ["B_EU_TRANSFER"],
    [("Transfers received by 3 pm on a business day go out the same day [S1].", S, "15:00 = 3 pm"),
     ("Standing orders can be changed until 8 pm the day before execution [S1].", S, "20:00 = 8 pm")],
    ["15:00", "3 pm"], ["20:00"])

add("correct_normalised", "bank", "en", "What does a one-year Nordhaven fixed-term deposit pay?",
    ["B_EU_DEPOSIT"],
    [("A one-year deposit pays 2.75 percent a year, with the interest paid out at maturity [S1].", S,
      "12 months 2.75%; interest at maturity for terms up to 12 months"),
     ("You can deposit anything between five thousand and half a million euros [S1].", S,
      "€5,000 to €500,000")],
    ["2.75%", "2.75"], ["2.60%", "2.40%"])

add("correct_normalised", "shop", "en", "When do I need to order from Brightcart for Saturday delivery?",
    ["SHOP_DEL"],
    [("Order by 4 pm on Friday to get Saturday delivery, which costs £7.99 [S1].", S,
      "16:00 on Friday = 4 pm; £7.99"),
     ("Nominated-day delivery can be booked up to two weeks ahead [S1].", S, "14 days = two weeks")],
    ["16:00", "4 pm"], ["£6.99"])

add("correct_normalised", "shop", "en", "How long does Brightcart ExtraCare cover my laptop?",
    ["SHOP_WARR"],
    [("ExtraCare extends your cover to three years in total, including accidental damage [S1].", S,
      "3 years in total"),
     ("You can add it at checkout or within thirty days of purchase [S1].", S, "30 days")],
    ["3 years", "three years"], ["1-year"])

add("correct_normalised", "shop", "en", "How do Brightcart Rewards points turn into vouchers?",
    ["SHOP_LOYAL"],
    [("Every five hundred points can be exchanged for a five-pound voucher [S1].", S, "500 points = £5 voucher"),
     ("Points are added to your account four weeks after delivery [S1].", S, "28 days = four weeks")],
    ["500", "£5"], [])

add("correct_normalised", "shop", "en", "Can I use several Brightcart gift cards on one order?",
    ["SHOP_GIFT"],
    [("Yes, you can use up to five gift cards on a single order [S1].", S, "up to 5"),
     ("Gift cards stay valid for two years from purchase or last use [S1].", S, "24 months = two years")],
    ["5", "five"], [])

add("correct_normalised", "textbook", "en", "What PWM frequency drives brushed DC motors, and how often does a hobby servo get a pulse?",
    ["TX_SERVO"],
    [("H-bridges usually drive brushed DC motors with PWM at 20,000 Hz, which is above the audible range [S1].",
      S, "20 kHz = 20,000 Hz"),
     ("A hobby servo gets a pulse every 0.02 s [S1].", S, "20 ms = 0.02 s")],
    ["20 kHz", "20,000 Hz", "20 ms"], [])

add("correct_normalised", "textbook", "en", "How fast does the example differential-drive robot go when both wheels turn at 10 rad/s?",
    ["TX_KIN"],
    [("With both wheels at 10 rad/s, the example robot drives straight ahead at 50 cm/s [S1].", S,
      "0.5 m/s = 50 cm/s"),
     ("Its wheels have a radius of 5 cm and its track width is 30 cm [S1].", S, "r = 0.05 m, L = 0.30 m")],
    ["0.5 m/s", "50 cm/s"], ["0.35 m/s"])

add("correct_normalised", "textbook", "en", "How quickly does gyroscope bias turn into orientation error?",
    ["TX_IMU"],
    [("A gyro bias of just 0.1°/s adds up to 6° of orientation error after 60 seconds [S1].", S,
      "0.1 deg/s -> 6 degrees after one minute"),
     ("A complementary filter usually updates at one hundred hertz [S1].", S, "100 Hz")],
    ["6 degrees", "6°"], [])

add("correct_normalised", "bank", "es", "¿Cuánto tengo que cobrar de nómina para no pagar comisión de mantenimiento?",
    ["ES_BANK_CUENTA"],
    [("No pagarás comisión de mantenimiento si domicilias una nómina de al menos 1200 euros al mes [S1].", S,
      "igual o superior a 1.200 € = al menos 1200 euros"),
     ("Si no, la comisión es de ocho euros mensuales [S1].", S, "8 € al mes")],
    ["1.200 €", "1.200", "1200"], ["8 €"])

add("correct_normalised", "shop", "es", "¿Cuándo es gratis el envío estándar en TiendaSol?",
    ["ES_SHOP_ENV"],
    [("El envío estándar es gratuito en pedidos de más de 49 euros [S1].", S, "superiores a 49 €"),
     ("Si pides el envío exprés antes de las dos de la tarde, de lunes a viernes, lo recibes en 24 horas [S1].",
      S, "14:00 = las dos de la tarde")],
    ["49 €", "49"], ["4,95 €"])

add("correct_normalised", "textbook", "es", "¿Cuántos grados gira un motor paso a paso en cada paso?",
    ["ES_TX_MOT"],
    [("Un motor paso a paso típico da doscientos pasos por vuelta, o sea 1,8° por paso [S1].", S,
      "200 pasos por vuelta, 1,8 grados por paso"),
     ("Un servo de modelismo recibe un pulso cada 0,02 segundos, es decir, a 50 Hz [S1].", S,
      "20 ms = 0,02 s; 50 Hz")],
    ["1,8", "1.8"], [])


# =====================================================================================
# build + lint
# =====================================================================================
CITE = re.compile(r"\[S(\d+)\]")
NUM = re.compile(r"\d[\d.,]*\d|\d")


def digits(s):
    """Numbers in a string, with thousands separators removed (both styles), as floats."""
    out = set()
    for tok in NUM.findall(s):
        t = tok
        if re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?", t):  # 1.200 / 1.200,50 (es)
            t = t.replace(".", "").replace(",", ".")
        elif re.fullmatch(r"\d+,\d{1,2}", t):  # 12,5 (es decimal)
            t = t.replace(",", ".")
        else:
            t = t.replace(",", "")
        t = t.rstrip(".")
        try:
            out.add(float(t))
        except ValueError:
            pass
    return out


def build():
    rng = random.Random(SEED)
    warnings = []
    out = []
    for it in ITEMS:
        sources = [{"key": f"S{i+1}", "title": SOURCES[sid][0], "text": SOURCES[sid][1]}
                   for i, sid in enumerate(it["srcs"])]
        keys = {s["key"] for s in sources}
        sentences = [c[0] for c in it["claims"]]
        reply = " ".join(sentences)
        assert 1 <= len(sentences) <= 4, it["question"]
        claims = []
        for sent, label, why in it["claims"]:
            assert label in LABELS, label
            cites = {f"S{n}" for n in CITE.findall(sent)}
            assert cites <= keys, (sent, keys)
            if it["kind"] == "money":
                assert not cites and label in {S, WN, WE}, sent
            elif label == UC:
                assert not cites, sent
            else:
                assert cites, sent
            # lint: numbers of supported sentences should appear in the cited source
            if it["kind"] != "money" and label == S:
                src_nums = set()
                for k in cites:
                    src_nums |= digits(next(s["text"] for s in sources if s["key"] == k))
                missing = digits(CITE.sub("", sent)) - src_nums
                if missing:
                    warnings.append(f"[{it['kind']}] supported sentence has numbers not in source {missing}: {sent}")
            if it["kind"] != "money" and label == WN:
                src_nums = set()
                for k in cites:
                    src_nums |= digits(next(s["text"] for s in sources if s["key"] == k))
                if not (digits(CITE.sub("", sent)) - src_nums):
                    warnings.append(f"[{it['kind']}] wrong_number sentence: all numbers occur in source: {sent}")
            claims.append({"sentence": sent, "label": label, "why": why})
        if it["kind"] == "money":
            rows = it["records"]["rows"]
            amounts = {float(r["amount"]) for r in rows}
            for c in claims:
                nums = digits(c["sentence"]) - {2026.0, 2025.0}
                if c["label"] == S and not nums <= amounts:
                    warnings.append(f"[money] supported sentence with amount not in records: {c['sentence']}")
        for s in sources:
            n = len(s["text"].split())
            if not 60 <= n <= 200:
                warnings.append(f"source {s['title']} has {n} words")
        for sent in sentences:
            assert reply.count(sent) == 1
        out.append({
            "kind": it["kind"], "domain": it["domain"], "language": it["lang"],
            "question": it["question"], "sources": sources, "records": it["records"],
            "reply": reply, "claims": claims, "facts": it["facts"], "wrong_facts": it["wrong_facts"],
        })

    # stratified split: ~25% dev within each kind, fixed seed
    by_kind = defaultdict(list)
    for i, o in enumerate(out):
        by_kind[o["kind"]].append(i)
    for kind in sorted(by_kind):
        idx = by_kind[kind][:]
        rng.shuffle(idx)
        n_dev = round(len(idx) * DEV_FRACTION)
        for j, i in enumerate(idx):
            out[i]["split"] = "dev" if j < n_dev else "test"

    # shuffle order so kinds are interleaved, then assign ids
    order = list(range(len(out)))
    rng.shuffle(order)
    final = []
    for n, i in enumerate(order, 1):
        o = out[i]
        final.append({"id": f"adv-{n:03d}", "split": o["split"], "kind": o["kind"], "domain": o["domain"],
                      "language": o["language"], "question": o["question"], "sources": o["sources"],
                      "records": o["records"], "reply": o["reply"], "claims": o["claims"],
                      "facts": o["facts"], "wrong_facts": o["wrong_facts"]})

    with open(os.path.join(HERE, "items.jsonl"), "w", encoding="utf-8") as f:
        for o in final:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")

    # report
    print(f"items: {len(final)}")
    print("per kind x split:")
    ks = Counter((o["kind"], o["split"]) for o in final)
    for kind in sorted(by_kind):
        print(f"  {kind:20s} dev={ks[(kind, 'dev')]:3d} test={ks[(kind, 'test')]:3d}")
    print("splits:", Counter(o["split"] for o in final))
    print("language:", Counter(o["language"] for o in final))
    print("domain:", Counter(o["domain"] for o in final))
    print("claim labels:", Counter(c["label"] for o in final for c in o["claims"]))
    print("items containing label:",
          {lab: sum(any(c["label"] == lab for c in o["claims"]) for o in final) for lab in sorted(LABELS)})
    print("all-supported items:", sum(all(c["label"] == S for c in o["claims"]) for o in final))
    if warnings:
        print("\nLINT WARNINGS (review by hand):")
        for w in warnings:
            print("  -", w)


if __name__ == "__main__":
    build()

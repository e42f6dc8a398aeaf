"""Merchants when the bank gives none: a name normalised from the raw description
("BOOTS UK 1234 LEEDS" → "Boots", "CARD PAYMENT TO PUREGYM LTD ON 03 SEP" →
"PureGym"), and the fuzzy matching a question's merchant or place needs ("Munich"
finds "MUENCHEN", "sainsburys" finds "Sainsbury's", "M&S" finds "Marks & Spencer").

- ``fold(text)``: the form names are compared in: accents and ligatures folded to
  ASCII (``ß`` → ``ss``, ``ø`` → ``o``), German ``ae``/``oe``/``ue`` read as the
  vowel (``MUENCHEN`` and ``München`` both → ``munchen``), apostrophes dropped,
  everything else not a letter or digit a space, lower case.
- ``normalise_merchant(description)``: payment-method prefixes and date, store
  number, reference and place suffixes removed; a known merchant (``KNOWN``) gets
  its own spelling, anything else is title-cased. The raw description is never
  changed: this is only the ``merchant_name`` an importer had none for.
- ``merchant_matches(asked, merchant, description)``: whether a name someone typed
  names this transaction's merchant (or a place in its description): every word
  asked found (after folding and aliases), or close enough (``difflib``).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from ..analyzer import strip_accents

_LIGATURES = str.maketrans({"ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                            "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "ð": "d", "ı": "i"})
_GERMAN_VOWELS = re.compile(r"(?<=[a-z])(ae|oe|ue)(?=[a-z])|^(ae|oe|ue)(?=[a-z])")
_NON_WORD = re.compile(r"[^a-z0-9&]+")

PLACE_ALIASES: dict[str, tuple[str, ...]] = {
    "munich": ("munchen", "muenchen"), "cologne": ("koln", "koeln"), "vienna": ("wien",),
    "nuremberg": ("nurnberg", "nuernberg"), "prague": ("praha",), "lisbon": ("lisboa",), "rome": ("roma",),
    "florence": ("firenze",), "milan": ("milano",), "venice": ("venezia",), "naples": ("napoli",),
    "turin": ("torino",), "genoa": ("genova",), "brussels": ("bruxelles", "brussel"), "antwerp": ("antwerpen",),
    "copenhagen": ("kobenhavn",), "gothenburg": ("goteborg",), "warsaw": ("warszawa",), "krakow": ("krakow",),
    "athens": ("athina",), "seville": ("sevilla",), "the hague": ("den haag", "s gravenhage"),
    "zurich": ("zurich",), "geneva": ("geneve", "genf"), "bucharest": ("bucuresti",), "belgrade": ("beograd",),
    "moscow": ("moskva",), "basle": ("basel",), "hanover": ("hannover",), "dunkirk": ("dunkerque",),
    "corunna": ("a coruna",), "bruges": ("brugge",), "ghent": ("gent",), "lucerne": ("luzern",),
    "frankfurt": ("frankfurt am main",), "mallorca": ("majorca", "palma"),
}
"""An English place name → the spellings statements print (folded)."""

MERCHANT_ALIASES: dict[str, tuple[str, ...]] = {
    "marks & spencer": ("m&s", "m s", "marks and spencer", "marks spencer", "m and s"),
    "mcdonald's": ("mcdonalds", "mcd", "maccies", "mcdonald"),
    "sainsbury's": ("sainsburys", "js sainsbury", "sainsbury"),
    "transport for london": ("tfl", "tfl travel", "tfl gov uk"),
    "amazon": ("amzn", "amazon co uk", "amazon uk", "amzn mktp", "amazon marketplace"),
    "deutsche bahn": ("db", "db vertrieb", "db bahn"),
    "british airways": ("ba",), "british gas": ("bg",), "kentucky fried chicken": ("kfc",),
    "uber eats": ("ubereats", "uber eats"), "just eat": ("justeat",), "costa coffee": ("costa",),
    "pret a manger": ("pret",), "john lewis": ("john lewis & partners", "jlp"), "hm": ("h&m", "h m", "hennes"),
    "tk maxx": ("tkmaxx", "tjx"), "virgin media": ("virginmedia",), "apple": ("apple com bill", "itunes"),
    "playstation": ("psn", "sony playstation"), "national rail": ("trainline", "lner", "avanti", "gwr"),
}
"""A merchant as people call it → the spellings statements print (folded)."""

# Canonical name, what starts its folded description (after the prefixes), Monzo category.
KNOWN: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Tesco Petrol", ("tesco pfs", "tesco petrol"), "transport"), ("Tesco Mobile", ("tesco mobile",), "bills"),
    ("Tesco", ("tesco",), "groceries"), ("Esselunga", ("esselunga",), "groceries"), ("Conad", ("conad",),
                                                                                     "groceries"),
    ("Sainsbury's Petrol", ("sainsburys petrol", "sainsburys pfs"), "transport"),
    ("Asda Petrol", ("asda petrol", "asda pfs"), "transport"), ("Monoprix", ("monoprix",), "groceries"),
    ("Netto", ("netto",), "groceries"), ("Penny", ("penny markt",), "groceries"), ("Sainsbury's", ("sainsburys", "sainsbury", "js sainsbury", "sainsburys s mkts"), "groceries"),
    ("Asda", ("asda",), "groceries"), ("Morrisons", ("morrisons", "wm morrison"), "groceries"),
    ("Aldi", ("aldi",), "groceries"), ("Lidl", ("lidl",), "groceries"), ("Waitrose", ("waitrose",), "groceries"),
    ("Co-op", ("co op", "coop", "co operative", "the co operative"), "groceries"),
    ("Ocado", ("ocado",), "groceries"), ("Iceland", ("iceland",), "groceries"), ("Spar", ("spar",), "groceries"),
    ("Marks & Spencer", ("marks & spencer", "marks and spencer", "m&s", "m s simply food"), "groceries"),
    ("Rewe", ("rewe",), "groceries"), ("Edeka", ("edeka",), "groceries"), ("Carrefour", ("carrefour",), "groceries"),
    ("Albert Heijn", ("albert heijn", "ah to go"), "groceries"), ("Mercadona", ("mercadona",), "groceries"),
    ("Whole Foods", ("whole foods", "wholefds"), "groceries"), ("Trader Joe's", ("trader joe",), "groceries"),
    ("Boots", ("boots",), "personal_care"), ("Superdrug", ("superdrug",), "personal_care"),
    ("PureGym", ("puregym", "pure gym"), "personal_care"), ("The Gym Group", ("the gym group", "gym group"),
                                                                "personal_care"),
    ("Nuffield Health", ("nuffield health",), "personal_care"), ("David Lloyd", ("david lloyd",), "personal_care"),
    ("dm", ("dm drogerie", "dm fil"), "personal_care"), ("Rossmann", ("rossmann",), "personal_care"),
    ("Holland & Barrett", ("holland & barrett", "holland and barrett"), "personal_care"),
    ("Specsavers", ("specsavers",), "personal_care"),
    ("Pret A Manger", ("pret a manger", "pret"), "eating_out"), ("Costa Coffee", ("costa",), "eating_out"),
    ("Starbucks", ("starbucks",), "eating_out"), ("Caffè Nero", ("caffe nero", "cafe nero", "nero"), "eating_out"),
    ("Greggs", ("greggs",), "eating_out"), ("McDonald's", ("mcdonald", "mcdonalds"), "eating_out"),
    ("KFC", ("kfc",), "eating_out"), ("Burger King", ("burger king",), "eating_out"),
    ("Nando's", ("nandos", "nando s"), "eating_out"), ("Wagamama", ("wagamama",), "eating_out"),
    ("Pizza Express", ("pizza express", "pizzaexpress"), "eating_out"), ("Domino's", ("dominos", "domino s"),
                                                                           "eating_out"),
    ("Five Guys", ("five guys",), "eating_out"), ("Leon", ("leon restaurants",), "eating_out"),
    ("Itsu", ("itsu",), "eating_out"), ("Wetherspoons", ("wetherspoon", "jd wetherspoon", "j d wetherspoon"), "eating_out"),
    ("Subway", ("subway",), "eating_out"), ("Deliveroo", ("deliveroo",), "eating_out"),
    ("Uber Eats", ("uber eats", "ubereats", "uber *eats"), "eating_out"), ("Just Eat", ("just eat", "justeat"),
                                                                            "eating_out"),
    ("Tim Hortons", ("tim hortons",), "eating_out"), ("Chipotle", ("chipotle",), "eating_out"),
    ("Uber", ("uber",), "transport"), ("Bolt", ("bolt eu", "bolt ride", "bolt"), "transport"),
    ("Transport for London", ("tfl", "transport for london"), "transport"),
    ("Trainline", ("trainline",), "transport"), ("LNER", ("lner",), "transport"),
    ("Avanti West Coast", ("avanti",), "transport"), ("GWR", ("gwr", "great western railway"), "transport"),
    ("CrossCountry", ("crosscountry", "cross country trains"), "transport"), ("ScotRail", ("scotrail",), "transport"),
    ("Trenitalia", ("trenitalia",), "transport"), ("Renfe", ("renfe",), "transport"), ("Northern", ("northern rail", "northern trains"),
                                                      "transport"),
    ("Deutsche Bahn", ("db vertrieb", "deutsche bahn", "db bahn"), "transport"), ("SNCF", ("sncf",), "transport"),
    ("Shell", ("shell",), "transport"), ("BP", ("bp ",), "transport"), ("Esso", ("esso",), "transport"),
    ("Texaco", ("texaco",), "transport"), ("RingGo", ("ringgo",), "transport"), ("NCP", ("ncp",), "transport"),
    ("Lime", ("lime ride", "lime"), "transport"), ("Stagecoach", ("stagecoach",), "transport"),
    ("First Bus", ("first bus", "firstbus"), "transport"), ("Lothian Buses", ("lothian buses",), "transport"),
    ("MVG", ("mvg",), "transport"), ("BVG", ("bvg",), "transport"),
    ("Ryanair", ("ryanair",), "holidays"), ("easyJet", ("easyjet",), "holidays"),
    ("British Airways", ("british airways", "british a"), "holidays"), ("Jet2", ("jet2",), "holidays"),
    ("Lufthansa", ("lufthansa",), "holidays"), ("Airbnb", ("airbnb",), "holidays"),
    ("Booking.com", ("booking com", "booking",), "holidays"), ("Expedia", ("expedia",), "holidays"),
    ("Premier Inn", ("premier inn",), "holidays"), ("Travelodge", ("travelodge",), "holidays"),
    ("Hotels.com", ("hotels com",), "holidays"), ("Eurostar", ("eurostar",), "transport"),
    ("TUI", ("tui",), "holidays"), ("Hilton", ("hilton",), "holidays"), ("Marriott", ("marriott",), "holidays"),
    ("Netflix", ("netflix",), "entertainment"), ("Spotify", ("spotify",), "entertainment"),
    ("Disney+", ("disney plus", "disneyplus", "disney"), "entertainment"), ("Odeon", ("odeon",), "entertainment"),
    ("Cineworld", ("cineworld",), "entertainment"), ("Vue", ("vue cinema", "vue"), "entertainment"),
    ("Everyman", ("everyman",), "entertainment"), ("Ticketmaster", ("ticketmaster",), "entertainment"),
    ("Steam", ("steam",), "entertainment"), ("PlayStation", ("playstation", "psn", "sony interactive"),
                                             "entertainment"),
    ("Xbox", ("xbox", "microsoft*xbox"), "entertainment"), ("Nintendo", ("nintendo",), "entertainment"),
    ("Audible", ("audible",), "entertainment"), ("Now TV", ("now tv", "nowtv"), "entertainment"),
    ("YouTube", ("youtube", "google youtube"), "entertainment"), ("Apple", ("apple com", "apple.com", "itunes"),
                                                                  "bills"),
    ("Amazon Prime", ("amazon prime", "amzn prime", "prime video"), "entertainment"),
    ("Amazon", ("amazon", "amzn"), "shopping"), ("eBay", ("ebay",), "shopping"), ("Argos", ("argos",), "shopping"),
    ("John Lewis", ("john lewis",), "shopping"), ("Primark", ("primark",), "shopping"), ("Next", ("next retail",
                                                                                            "next plc"), "shopping"),
    ("Zara", ("zara",), "shopping"), ("H&M", ("h&m", "h m ", "hm hennes"), "shopping"), ("Uniqlo", ("uniqlo",),
                                                                                         "shopping"),
    ("IKEA", ("ikea",), "shopping"), ("Currys", ("currys",), "shopping"), ("TK Maxx", ("tk maxx", "tkmaxx"),
                                                                           "shopping"),
    ("Waterstones", ("waterstones",), "shopping"), ("WHSmith", ("whsmith", "wh smith"), "shopping"),
    ("B&Q", ("b&q", "b q "), "shopping"), ("Wilko", ("wilko",), "shopping"), ("ASOS", ("asos",), "shopping"),
    ("Etsy", ("etsy",), "shopping"), ("Screwfix", ("screwfix",), "shopping"), ("Decathlon", ("decathlon",),
                                                                                "shopping"),
    ("Thames Water", ("thames water",), "bills"), ("Yorkshire Water", ("yorkshire water",), "bills"),
    ("Severn Trent", ("severn trent",), "bills"), ("United Utilities", ("united utilities",), "bills"),
    ("British Gas", ("british gas",), "bills"), ("Octopus Energy", ("octopus energy", "octopus"), "bills"),
    ("EDF Energy", ("edf",), "bills"), ("E.ON", ("e on", "eon next", "eon"), "bills"),
    ("OVO Energy", ("ovo",), "bills"), ("Bulb", ("bulb energy",), "bills"), ("Vodafone", ("vodafone",), "bills"),
    ("EE", ("ee limited", "ee "), "bills"), ("O2", ("o2", "telefonica"), "bills"), ("Three", ("three", "h3g"),
                                                                                     "bills"),
    ("BT", ("bt group", "bt ", "british telecom"), "bills"), ("Sky", ("sky digital", "sky uk", "sky"), "bills"),
    ("Virgin Media", ("virgin media", "virginmedia"), "bills"), ("TalkTalk", ("talktalk",), "bills"),
    ("giffgaff", ("giffgaff",), "bills"), ("TV Licensing", ("tv licence", "tv licensing"), "bills"),
    ("Council Tax", ("council tax",), "bills"), ("Direct Line", ("direct line",), "bills"),
    ("Aviva", ("aviva",), "bills"), ("Admiral", ("admiral",), "bills"), ("Telekom", ("telekom",), "bills"),
    ("Oxfam", ("oxfam",), "charity"), ("British Red Cross", ("british red cross", "red cross"), "charity"),
    ("Cancer Research UK", ("cancer research",), "charity"), ("RSPCA", ("rspca",), "charity"),
    ("Macmillan", ("macmillan",), "charity"), ("JustGiving", ("justgiving",), "charity"),
    ("Save the Children", ("save the children",), "charity"), ("Shelter", ("shelter",), "charity"),
    ("Moonpig", ("moonpig",), "gifts"), ("Interflora", ("interflora",), "gifts"), ("Funky Pigeon",
                                                                                   ("funky pigeon",), "gifts"),
    ("Clintons", ("clintons",), "gifts"), ("Card Factory", ("card factory",), "gifts"),
)
"""Known merchants: canonical name, the folded starts of descriptions that name them,
and their category in Monzo's taxonomy (``categories.TAXONOMY``)."""

_PREFIXES = re.compile(
    r"^(?:(?:card payment|card purchase|contactless payment|contactless|debit card payment|visa debit|"
    r"direct debit payment|direct debit|dd|d/d|standing order|s/o|so|bill payment|faster payment|"
    r"fps|bacs|pos|vis|bcc|deb|dbt|cpt|purchase|payment|pmt|apple pay|google pay|gpay|sumup|sq|zettle|iz|"
    r"paypal|pp|crv|clp|bgc|ft|tfr|transfer|online payment|mobile payment|recurring|"
    r"kartenzahlung|lastschrift|sepa lastschrift|sepa|ueberweisung|überweisung|girocard|ec|"
    r"compra tarj\.?|compra|tarj\.?|pago|cb|achat cb|prlv sepa|prlv|carte|paiement|addebito|pagamento|"
    r"betaalautomaat|bea|pin)\b[ *:/.-]*)+"
    r"(?:(?:to|at|from|ref|for)\b\s*)?", re.IGNORECASE)
_SUFFIXES = (
    re.compile(r"\s+on\s+\d{1,2}\s*[a-z]{3}(?:\s+\d{2,4})?.*$", re.IGNORECASE),  # "ON 03 SEP"
    re.compile(r"\s+\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?.*$"),  # a date
    re.compile(r"\s+(?:ref|reference|mandate|card|crd)\b.*$", re.IGNORECASE),
    re.compile(r"\s+(?:gbr|gb|uk|deu|de|fra|fr|esp|es|ita|it|nld|nl|irl|ie|usa|us)$", re.IGNORECASE),
)
_NOISE_WORDS = frozenset({"ltd", "limited", "plc", "llp", "gmbh", "ag", "sa", "sarl", "bv", "inc", "llc", "co",
                          "uk", "gb", "gbr", "stores", "store", "superstore", "supermarket", "supermarkets",
                          "s/mkts", "smkt", "express", "extra", "metro", "local", "online", "retail", "group",
                          "com", "www", "the"})
_PLACE_WORDS = frozenset({
    "london", "leeds", "manchester", "birmingham", "glasgow", "edinburgh", "liverpool", "bristol", "sheffield",
    "cardiff", "belfast", "newcastle", "nottingham", "leicester", "york", "brighton", "oxford", "cambridge",
    "bath", "reading", "coventry", "bradford", "southampton", "portsmouth", "aberdeen", "dundee", "norwich",
    "exeter", "plymouth", "derby", "harrogate", "wakefield", "huddersfield", "salford", "stockport",
    "milton keynes", "croydon", "camden", "islington", "hackney", "muenchen", "munchen", "munich", "berlin",
    "hamburg", "frankfurt", "koeln", "koln", "paris", "madrid", "barcelona", "amsterdam", "dublin", "rome",
    "roma", "milano", "lisboa", "wien", "praha", "gbr", "gb"})
_TRAILING_WORDS = frozenset({
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "january",
    "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
    "bcc", "bgc", "ddr", "bbp", "fpo", "fpi", "dd", "so", "tfr", "chq", "cpt", "pos", "deb", "ft", "fp", "bp",
    "salary", "wages", "pay", "rent", "payment", "pmt", "ref", "pending", "refund"})
"""Words a description ends with that are not the merchant's: months, Barclays' and
Lloyds' payment codes, what the payment was for."""
_DIGITS = re.compile(r"\b[0-9][0-9a-z]*\b|\b[a-z]*\d{3,}[a-z0-9]*\b|#\S*")


def fold(text: str) -> str:
    """The form names are compared in (see the module docstring)."""
    text = strip_accents(text.translate(_LIGATURES)).casefold()
    text = text.replace("'", "").replace("’", "").replace("`", "")
    text = _NON_WORD.sub(" ", text)
    words = [_GERMAN_VOWELS.sub(lambda m: (m.group(1) or m.group(2))[0], w) if len(w) > 4 else w
             for w in text.split()]
    return " ".join(words)


@lru_cache(maxsize=1)
def _known_by_start() -> list[tuple[str, str, str]]:
    """(folded start, canonical name, category), longest start first."""
    entries = [(fold(start), name, category) for name, starts, category in KNOWN for start in starts]
    return sorted(entries, key=lambda e: -len(e[0]))


def known_merchant(description: str) -> tuple[str, str] | None:
    """(canonical name, category) of a known merchant whose name starts this description
    (after payment prefixes and a leading ``www``), or None."""
    words = fold(_strip(description)).split()
    while words and words[0] in ("www", "the"):
        words.pop(0)
    folded = f" {' '.join(words)} "
    for start, name, category in _known_by_start():
        # A brand run into a domain or product ("STEAMGAMES.COM") counts for a one-word start of 5+ letters.
        if folded.startswith(f" {start} ") or (len(start) >= 5 and " " not in start and words
                                               and words[0].startswith(start)):
            return name, category
    return None


def _strip(description: str) -> str:
    """The description without payment-method prefixes and date/reference suffixes."""
    text = " ".join(description.replace("\u00a0", " ").replace("_", " ").split())
    previous = None
    while previous != text:
        previous = text
        text = _PREFIXES.sub("", text).strip(" *-:/")
    for suffix in _SUFFIXES:
        text = suffix.sub("", text).strip()
    return text


def normalise_merchant(description: str) -> str:
    """The merchant a raw bank description names: a known merchant's own spelling,
    else the description's words without payment prefixes, dates, store numbers,
    references, company suffixes and trailing places, title-cased ("" when nothing
    is left)."""
    known = known_merchant(description)
    if known is not None:
        return known[0]
    core = _strip(description)
    words = [w for w in _DIGITS.sub(" ", core.casefold()).replace("*", " ").split()]
    while len(words) > 1 and (fold(words[-1]) in _PLACE_WORDS or words[-1] in _NOISE_WORDS
                              or words[-1] in _TRAILING_WORDS):
        words.pop()
    kept = [w for w in words if w not in _NOISE_WORDS or len(words) == 1]
    name = " ".join(kept[:4]).strip(" .,-/&")
    return " ".join(_title(w) for w in name.split()) if name else ""


def _title(word: str) -> str:
    if len(word) <= 3 and word.isalpha() and word not in {"the", "and", "of", "bar", "pub", "cafe", "tea"}:
        return word.upper() if not any(c in "aeiou" for c in word) else word.capitalize()
    return "-".join(part[:1].upper() + part[1:] for part in word.split("-"))


def _variants(phrase: str) -> set[str]:
    """A folded phrase and the spellings its aliases stand for."""
    out = {phrase}
    for table in (PLACE_ALIASES, MERCHANT_ALIASES):
        for english, spellings in table.items():
            names = {fold(english), *(fold(s) for s in spellings)}
            if phrase in names:
                out |= names
    return {v for v in out if v}


def merchant_matches(asked: str, merchant: str | None, description: str | None) -> bool:
    """Whether ``asked`` (a merchant, brand or place as a person writes it) names this
    transaction: its words (or an alias's) all found among the merchant's and
    description's folded words — a word may also be found as the start of one
    ("sainsbury" in "sainsburys") or closely enough spelt (ratio ≥ 0.85, words of
    5+ letters) — or the whole phrase found with its spaces removed ("pure gym" in
    "PUREGYM")."""
    phrase = fold(asked)
    if not phrase:
        return False
    haystack = fold(" ".join(filter(None, (merchant, description))))
    if not haystack:
        return False
    words = haystack.split()
    joined = haystack.replace(" ", "")
    for variant in _variants(phrase):
        if f" {variant} " in f" {haystack} " or (len(variant) >= 4 and variant.replace(" ", "") in joined):
            return True
        if all(_word_found(w, words) for w in variant.split()):
            return True
    return False


def _word_found(word: str, words: list[str]) -> bool:
    for other in words:
        if other == word or (len(word) >= 4 and other.startswith(word)) or (len(other) >= 4
                                                                            and word.startswith(other)
                                                                            and len(word) - len(other) <= 1):
            return True
        if len(word) >= 5 and len(other) >= 5 and SequenceMatcher(None, word, other).ratio() >= 0.85:
            return True
    return False

"""Kinds of spending in everyday words ("food shopping", "takeaways", "the cinema",
"coffee", "bills", "the gym"): what each means on a statement, so that a plan may
name a kind and the executor finds its transactions whatever the bank printed.

A kind matches a transaction by its category (the bank's, inferred, or corrected:
one of ``categories``), by its payee (one of ``brands``, matched like any merchant
name, ``records.matching``) or by a word of its description (``words``). A planner
names a kind by its key; ``phrases`` are what people call it (the offline parser's
vocabulary, and the LLM planner's list of kinds).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .matching import fold, variants


@dataclass(frozen=True)
class Kind:
    key: str
    label: str  # how an answer names it
    phrases: tuple[str, ...]  # what people call it (folded words; the longest is tried first)
    categories: tuple[str, ...] = ()  # category names that mean exactly this kind (folded)
    brands: tuple[str, ...] = ()
    words: tuple[str, ...] = ()  # description words that give it away


KINDS: tuple[Kind, ...] = (
    Kind("groceries", "groceries",
         ("food shopping", "grocery shopping", "groceries", "grocery", "supermarket", "supermarkets",
          "food shop", "food shops", "weekly shop", "big shop", "the shopping", "lebensmittel", "supermarkt"),
         ("groceries", "grocery", "supermarket", "supermarkets", "food shopping", "lebensmittel", "food & drink shops"),
         ("Tesco", "Sainsbury's", "Asda", "Morrisons", "Waitrose", "Lidl", "Aldi", "Co-op", "Coop", "Iceland",
          "Ocado", "M&S Simply Food", "Marks & Spencer Food", "Whole Foods", "Rewe", "Edeka", "Netto", "Penny Markt",
          "Kaufland", "Spar", "Carrefour", "Albert Heijn", "Jumbo", "Mercadona", "Booths", "Budgens",
          "Farmfoods", "Getir", "Gorillas", "Denns", "Alnatura", "dm-drogerie", "Rossmann"),
         ("supermarket", "supermarkt", "grocer", "grocery")),
    Kind("eating_out", "eating out",
         ("eating out", "eat out", "restaurants", "restaurant", "dining out", "dining", "meals out", "dinners out",
          "food out", "lunches", "lunch out", "brunch", "meal", "meals", "dinner", "dinners"),
         ("eating out", "restaurants", "restaurant", "dining", "food & drink", "restaurants & cafes",
          "gastronomie", "restaurants and bars"),
         ("Nando's", "Wagamama", "Pizza Express", "Zizzi", "Dishoom", "Franco Manca", "Honest Burgers", "Leon Restaurants",
          "Itsu", "Wasabi", "Five Guys", "Byron", "Côte", "Bella Italia", "Vapiano", "L'Osteria", "Hans im Glück",
          "Yo Sushi", "Tortilla", "Chipotle", "Busaba", "GBK", "Gourmet Burger Kitchen", "Toby Carvery",
          "Harvester", "Frankie & Benny's", "Prezzo", "ASK Italian", "Carluccio's", "Giraffe", "Hofbräuhaus",
          "Augustiner", "Paulaner", "Pschorr", "Hacker-Pschorr", "Schottenhamel", "Airbräu", "Löwenbräukeller",
          "Schneider Bräuhaus", "Ratskeller"),
         ("restaurant", "ristorante", "trattoria", "pizzeria", "bistro", "brasserie", "grill", "kitchen", "diner",
          "gasthaus", "wirtshaus", "taverna", "sushi", "ramen", "noodle", "curry house", "tandoori", "steakhouse",
          "braustuben", "bräustuben", "brauhaus", "bräuhaus", "bierhalle", "festzelt", "gaststatte", "gaststätte")),
    Kind("takeaways", "takeaways",
         ("takeaways", "takeaway", "take away", "take-away", "takeout", "delivery food",
          "food delivery", "deliveries", "ordering in", "ordered in", "lieferando", "fast food", "takeaway food"),
         ("takeaway", "takeaways", "food delivery", "fast food"),
         ("Deliveroo", "Just Eat", "Uber Eats", "Lieferando", "Domino's", "Pizza Hut", "Papa John's",
          "McDonald's", "Burger King", "KFC", "Subway", "Wolt", "Foodora", "Five Guys", "Greggs"),
         ("takeaway", "kebab", "chippy", "fish & chips", "fried chicken", "doner", "döner", "imbiss")),
    Kind("coffee", "coffee",
         ("coffee", "coffees", "coffee shops", "coffee shop", "cafes", "cafe", "café", "cafés", "flat whites",
          "lattes", "latte", "cappuccino"),
         ("coffee", "coffee shops", "cafes", "cafe"),
         ("Starbucks", "Costa", "Caffe Nero", "Pret", "Pret A Manger", "Black Sheep Coffee", "Joe & The Juice",
          "Gail's", "Blank Street", "Grind", "Monmouth", "Workshop Coffee", "Tim Hortons", "Einstein Kaffee",
          "Balzac Coffee", "Tchibo", "Coffee Fellows", "Espresso House", "Dunkin"),
         ("coffee", "cafe", "café", "kaffee", "espresso", "roasters", "roastery")),
    Kind("cinema", "the cinema",
         ("cinema", "cinemas", "the movies", "movies", "movie", "films at", "the pictures", "kino", "film tickets",
          "movie tickets"),
         ("cinema", "cinemas", "movies", "kino"),
         ("Odeon", "Vue", "Cineworld", "Everyman", "Picturehouse", "Curzon", "Showcase", "Empire Cinemas",
          "CineStar", "UCI", "Cinemaxx", "Yorck", "Zoo Palast", "Mathäser", "Arri Kino", "Cinema City", "AMC",
          "Regal", "Pathé", "Kinopolis"),
         ("cinema", "kino", "cinemas", "imax", "filmtheater", "lichtspiele", "picturehouse")),
    Kind("gym", "the gym",
         ("the gym", "gym", "gyms", "fitness", "gym membership", "working out", "fitness studio", "exercise",
          "classes at the gym", "fitnessstudio", "yoga", "pilates", "climbing"),
         ("gym", "fitness", "sport", "sports", "health & fitness", "sports & fitness", "fitness studio"),
         ("PureGym", "The Gym Group", "Gym Group", "David Lloyd", "Anytime Fitness", "Virgin Active", "Nuffield Health",
          "Better Leisure", "Fitness First", "McFit", "FitX", "Urban Sports Club", "ClassPass", "Clever Fit", "John Reed",
          "Third Space", "Gymbox", "1Rebel", "F45", "Barry's", "Les Mills", "Planet Fitness", "Everyone Active",
          "Bannatyne", "Holmes Place", "Fitness World", "SportsDirect Fitness", "Peloton", "Strava"),
         ("gym", "fitness", "leisure centre", "yoga", "pilates", "climbing", "bouldering", "fitnessstudio")),
    Kind("bills", "bills",
         ("bills", "bill", "utilities", "utility", "utility bills", "household bills", "nebenkosten", "fixed costs"),
         ("bills", "utilities", "utility", "bills & utilities", "household bills", "energy", "water", "council tax",
          "broadband", "phone", "mobile", "internet", "telecoms", "nebenkosten", "strom", "versorgung",
          "gas & electricity", "tv licence"),
         ("Thames Water", "Anglian Water", "Severn Trent", "United Utilities", "Yorkshire Water", "Southern Water",
          "Scottish Water", "Welsh Water", "Dwr Cymru", "British Gas", "EDF", "E.ON", "Octopus Energy", "OVO",
          "Ovo Energy", "Scottish Power", "SSE", "Bulb", "Shell Energy", "So Energy", "Good Energy", "BT", "Sky",
          "Virgin Media", "TalkTalk", "Plusnet", "Hyperoptic", "Vodafone", "EE", "O2", "giffgaff",
          "Council Tax", "TV Licence", "TV Licensing", "Stadtwerke", "Vattenfall", "Telekom", "1&1", "Stromio",
          "Lichtblick", "Rundfunkbeitrag", "GEZ", "Deutsche Telekom", "Congstar", "Telefonica"),
         ("water", "energy", "electricity", "council tax", "broadband", "gas", "strom", "stadtwerke",
          "rundfunk", "tv licence", "mobile")),
    Kind("energy", "energy",
         ("energy", "electricity", "gas and electricity", "gas bill", "electric bill", "electricity bill",
          "heating", "power bill", "strom", "energy bill", "energy bills", "energy supplier", "gas and electric",
          "electricity supplier", "energy company"),
         ("energy", "gas & electricity", "electricity", "strom"),
         ("British Gas", "EDF", "E.ON", "Octopus Energy", "OVO", "Ovo Energy", "Scottish Power", "SSE", "Bulb",
          "Shell Energy", "So Energy", "Good Energy", "Vattenfall", "Stadtwerke", "Stromio", "Lichtblick", "EnBW",
          "Yello"),
         ("energy", "electricity", "strom", "gas bill", "gas supply")),
    Kind("water", "water",
         ("water bill", "water bills", "water"),
         ("water",),
         ("Thames Water", "Anglian Water", "Severn Trent", "United Utilities", "Yorkshire Water", "Southern Water",
          "Scottish Water", "Welsh Water", "Dwr Cymru", "Wessex Water", "South West Water", "Affinity Water",
          "Northumbrian Water", "water bill", "water company"),
         ("water",)),
    Kind("phone", "phone and internet",
         ("phone bill", "mobile bill", "phone", "mobile phone", "broadband", "internet", "wifi", "phone contract"),
         ("phone", "mobile", "broadband", "internet", "telecoms", "phone & internet"),
         ("BT", "Sky", "Virgin Media", "TalkTalk", "Plusnet", "Hyperoptic", "Vodafone", "EE", "O2",
          "giffgaff", "Telekom", "1&1", "Congstar", "Telefonica", "Lebara", "Lycamobile", "iD Mobile", "Tesco Mobile",
          "Sky Mobile", "Community Fibre"),
         ("broadband", "mobile", "telecom")),
    Kind("direct_debits", "direct debits",
         ("direct debits", "direct debit", "dds", "standing orders", "standing order", "debit orders",
          "lastschriften", "daueraufträge"),
         ("direct debits",),
         (),
         ("direct debit", "standing order", "dd", "so", "lastschrift", "dauerauftrag")),
    Kind("flights", "flights",
         ("flights", "flight", "plane tickets", "airfare", "airfares", "flug", "fluge"),
         ("flights",),
         ("easyJet", "Ryanair", "British Airways", "Jet2", "Wizz Air", "Lufthansa", "Eurowings", "KLM", "Air France",
          "Iberia", "Vueling", "TUI Airways", "Condor", "Norwegian", "Emirates", "Loganair", "Aer Lingus",
          "Virgin Atlantic", "SAS", "Swiss", "Austrian Airlines", "Qatar Airways", "Turkish Airlines"),
         ("airline", "airlines", "airways", "flight", "air ")),
    Kind("subscriptions", "subscriptions",
         ("subscriptions", "subscription", "streaming", "streaming services", "memberships", "abos", "abonnements"),
         ("subscriptions", "subscription", "streaming", "entertainment subscriptions", "digital subscriptions"),
         ("Netflix", "Spotify", "Disney+", "Amazon Prime", "Apple.com/bill", "Apple Music", "iCloud", "YouTube Premium",
          "Now TV", "DAZN", "Audible", "Adobe", "Microsoft", "Dropbox", "Paramount+", "Crunchyroll",
          "Headspace", "Duolingo", "The Times", "The Guardian", "The Economist", "Patreon", "ChatGPT",
          "OpenAI", "Google One", "Xbox", "PlayStation", "Nintendo", "Sky TV", "Kindle Unlimited", "Deezer",
          "Tidal", "Apple TV", "Britbox", "Waitrose Delivery Pass", "Zeit", "Spiegel"),
         ("subscription", "membership", "premium", "abo")),
    Kind("transport", "transport",
         ("transport", "travel to work", "commuting", "commute", "public transport", "getting around", "fares",
          "buses", "bus", "the tube", "tube", "oeffis", "öffis", "travel costs", "travelcard"),
         ("transport", "transportation", "travel & transport", "public transport", "taxi", "commuting", "mobility"),
         ("TfL", "Transport for London", "Trainline", "LNER", "Avanti", "GWR", "Great Western Railway", "Southern Railway",
          "Thameslink", "Northern Rail", "ScotRail", "Southeastern", "South Western Railway", "CrossCountry", "Uber",
          "Bolt", "Free Now", "Addison Lee", "Lime", "National Express", "Megabus", "FlixBus", "Stagecoach",
          "Arriva", "First Bus", "Lothian Buses", "Deutsche Bahn", "DB", "BVG", "MVG", "MVV", "HVV", "VBB", "RMV",
          "KVB", "SBB", "ÖBB", "Citymapper", "Santander Cycles", "Voi", "Share Now"),
         ("railway", "rail", "trains", "bus", "buses", "taxi", "metro", "tube", "fahrkarte", "ticket machine")),
    Kind("trains", "trains",
         ("trains", "train", "train tickets", "train ticket", "rail", "railway", "rail fares", "the train"),
         ("rail", "trains"),
         ("Trainline", "LNER", "Avanti", "Avanti West Coast", "GWR", "Great Western Railway", "Southern Railway",
          "Thameslink", "Northern Rail", "ScotRail", "Southeastern", "South Western Railway", "CrossCountry",
          "Eurostar", "Deutsche Bahn", "DB Vertrieb", "SNCF", "Trenitalia", "Renfe", "SBB", "ÖBB", "National Rail",
          "c2c", "Chiltern Railways", "TransPennine", "Merseyrail", "Greater Anglia", "Elizabeth line"),
         ("railway", "rail", "trainline", "railcard", "fahrkarte")),
    Kind("taxis", "taxis",
         ("taxis", "taxi", "cabs", "cab", "ubers", "uber rides", "rides", "ride", "minicab"),
         ("taxi", "taxis"),
         ("Uber", "Bolt", "Free Now", "Addison Lee", "Gett", "Lyft", "Kapten", "Veezu", "Taxi"),
         ("taxi", "cab", "minicab", "uber trip", "uber *trip")),
    Kind("fuel", "fuel",
         ("fuel", "petrol", "diesel", "gas station", "filling up", "the car's petrol", "tanken", "tankstelle"),
         ("fuel", "petrol", "car fuel", "tanken"),
         ("Shell", "BP", "Esso", "Texaco", "Jet", "Gulf", "Aral", "TotalEnergies", "Agip", "OMV",
          "Tesco Petrol", "Sainsbury's Petrol", "Asda Petrol", "Morrisons Petrol", "Avia"),
         ("petrol", "fuel", "tankstelle", "filling station", "service station")),
    Kind("travel", "travel",
         ("holidays", "holiday", "travel", "trips", "trip", "hotels", "hotel", "airbnb",
          "vacation", "urlaub", "reisen", "getaway", "accommodation"),
         ("travel", "holidays", "holiday", "flights", "hotels", "accommodation", "reisen", "urlaub"),
         ("easyJet", "Ryanair", "British Airways", "Jet2", "Wizz Air", "Lufthansa", "Eurowings", "KLM",
          "Air France", "Iberia", "Vueling", "TUI", "Eurostar", "Airbnb", "Booking.com", "Expedia", "Hotels.com",
          "Premier Inn", "Travelodge", "Hilton", "Marriott", "Holiday Inn", "Ibis", "Novotel", "Motel One",
          "Hostelworld", "Condor", "Norwegian", "Emirates", "Loganair"),
         ("airline", "airways", "hotel", "hostel", "flight", "airport", "travel")),
    Kind("pubs", "pubs and bars",
         ("pubs", "pub", "bars", "bar", "drinks", "drinking", "going out", "nights out", "night out", "beers",
          "beer", "wine bars", "kneipe", "kneipen", "biergarten", "beer halls", "beer hall", "beer gardens",
          "beer garden", "brewery", "breweries"),
         ("pubs", "bars", "pubs & bars", "nightlife", "drinks", "bars & pubs", "going out"),
         ("Wetherspoon", "JD Wetherspoon", "Greene King", "Fuller's", "Young's", "Brewdog", "All Bar One",
          "Nicholson's", "Be At One", "Revolution", "Slug and Lettuce", "O'Neill's", "Hofbräuhaus", "Augustiner",
          "Paulaner", "Löwenbräukeller", "Löwenbräu", "Hacker-Pschorr", "Pschorr", "Schottenhamel", "Spaten",
          "Weihenstephan", "Schneider Bräuhaus", "Airbräu", "Ayinger", "Andechser", "Hofbräu", "Franziskaner"),
         ("pub", "bar", "tavern", "arms", "brewery", "brewdog", "taproom", "kneipe", "biergarten",
          "brauhaus", "cocktail", "ale house", "alehouse", "bräustuben", "braustuben", "bräuhaus", "brauerei",
          "bierhalle", "bierkeller", "wirtshaus", "festzelt", "beer hall")),
    Kind("clothes", "clothes",
         ("clothes", "clothing", "fashion", "shoes", "trainers", "kleidung"),
         ("clothes", "clothing", "fashion", "shopping: clothes", "kleidung"),
         ("Zara", "H&M", "Uniqlo", "Primark", "Next", "ASOS", "Zalando", "Topshop", "Gap", "Mango", "Arket", "COS",
          "TK Maxx", "JD Sports", "Sports Direct", "Nike", "Adidas", "New Look", "River Island", "Boden", "Jigsaw",
          "Whistles", "Foot Locker", "Schuh", "Clarks", "Peek & Cloppenburg", "C&A", "About You",
          "Vinted", "Everlane", "Levi's", "Superdry", "FatFace", "White Stuff", "Joules", "Seasalt"),
         ("clothing", "fashion", "apparel", "shoes", "boutique")),
    Kind("health", "health and pharmacy",
         ("pharmacy", "chemist", "medicine", "prescriptions", "prescription", "health", "doctor", "dentist",
          "apotheke", "optician", "glasses"),
         ("health", "healthcare", "pharmacy", "medical", "health & beauty", "gesundheit", "apotheke"),
         ("Boots", "Superdrug", "Lloyds Pharmacy", "Well Pharmacy", "Specsavers", "Vision Express", "Bupa",
          "Rossmann", "dm-drogerie markt", "Apotheke", "Holland & Barrett", "Doctolib", "Push Doctor"),
         ("pharmacy", "apotheke", "chemist", "dental", "dentist", "clinic", "optician", "medical", "surgery",
          "physio", "doctor", "praxis")),
    Kind("rent", "rent",
         ("rent", "my rent", "the rent", "rental", "housing", "miete", "mortgage", "mortgage payments"),
         ("rent", "housing", "mortgage", "miete", "rent & mortgage", "home"),
         ("Homelet", "OpenRent", "Foxtons", "Rightmove", "Hausverwaltung", "Vonovia", "Deutsche Wohnen", "LEG"),
         ("rent", "miete", "mortgage", "letting", "lettings", "landlord", "hausverwaltung", "wohnung",
          "kaltmiete", "warmmiete")),
    Kind("insurance", "insurance",
         ("insurance", "insurances", "versicherung", "cover"),
         ("insurance", "versicherung", "insurances"),
         ("Aviva", "Direct Line", "Admiral", "LV=", "Churchill", "AXA", "Allianz", "Hastings", "Legal & General",
          "Vitality", "Zurich", "ERGO", "HUK", "HUK-Coburg", "Generali", "Debeka", "Techniker Krankenkasse",
          "AOK", "Barmer", "DAK", "Simply Business", "Lemonade"),
         ("insurance", "versicherung", "assurance", "insure")),
    Kind("entertainment", "entertainment",
         ("entertainment", "fun", "leisure", "concerts", "concert", "gigs", "gig", "tickets", "theatre", "events",
          "museums", "museum", "freizeit"),
         ("entertainment", "leisure", "freizeit", "hobbies", "culture", "events"),
         ("Ticketmaster", "See Tickets", "Eventbrite", "Dice", "Eventim", "Skiddle", "AXS", "ATG Tickets",
          "Odeon", "Vue", "Cineworld", "Everyman", "Picturehouse", "Steam", "PlayStation", "Xbox", "Nintendo"),
         ("tickets", "theatre", "theater", "museum", "concert", "gallery", "festival", "bowling", "escape room")),
    Kind("shopping", "shopping",
         ("shopping", "online shopping", "general shopping", "stuff online", "einkaufen", "household stuff",
          "household things", "household goods", "household items", "homeware", "homewares", "stuff for the house",
          "stuff for the flat", "things for the house", "things for the flat", "furniture", "household"),
         ("shopping", "general merchandise", "online shopping", "retail", "einkäufe", "household", "home"),
         ("Amazon", "eBay", "Argos", "John Lewis", "IKEA", "Etsy", "Currys", "Apple Store", "Otto", "MediaMarkt",
          "Robert Dyas", "Homebase", "Wayfair", "Habitat", "Made.com", "Dunelm", "The White Company",
          "Saturn", "Decathlon", "Waterstones", "WHSmith", "The Range", "B&Q", "Wilko", "Lakeland", "Muji",
          "Tiger", "Flying Tiger", "Hobbycraft", "Dunelm", "Habitat", "Temu", "Shein", "AliExpress"),
         ()),
    Kind("haircuts", "haircuts",
         ("haircuts", "haircut", "hairdresser", "hairdressers", "barber", "barbers", "barber's", "the barber",
          "the barbers", "hair", "friseur"),
         ("hair", "haircuts", "friseur", "barbers"),
         ("Toni & Guy", "Rush Hair", "Headmasters", "Ruffians", "Pall Mall Barbers", "Murdock", "Blue Tit",
          "Bleach London", "Hershesons", "Taylor Taylor", "Sassoon", "Treatwell", "Fresha"),
         ("barber", "barbers", "barbershop", "hair", "hairdresser", "hairdressing", "salon", "friseur",
          "coiffeur")),
    Kind("beauty", "beauty",
         ("beauty", "nails", "manicure", "spa", "cosmetics", "make-up", "makeup"),
         ("beauty",),
         ("Lush", "The Body Shop", "Sephora", "Douglas", "Space NK", "Benefit", "Charlotte Tilbury"),
         ("nails", "beauty", "spa", "cosmetics")),
    Kind("charity", "charity",
         ("charity", "charities", "donations", "donation", "giving", "spenden"),
         ("charity", "donations", "charitable giving", "spenden"),
         ("Oxfam", "Cancer Research", "British Red Cross", "RSPCA", "Save the Children", "Macmillan", "JustGiving",
          "GoFundMe", "Wikimedia", "UNICEF", "Médecins Sans Frontières", "MSF", 
          "British Heart Foundation", "WWF", "Greenpeace", "Ärzte ohne Grenzen", "Amnesty"),
         ("charity", "donation", "foundation", "spende")),
    Kind("pets", "pets",
         ("pets", "pet", "the dog", "the cat", "vet", "vets", "pet food", "haustier"),
         ("pets", "pet care", "haustiere"),
         ("Pets at Home", "Fressnapf", "Zooplus", "Butternut Box", "Tails.com", "Medivet", "Vets4Pets"),
         ("vet", "vets", "veterinary", "pet", "tierarzt")),
    Kind("salary", "salary",
         ("salary", "salaries", "my pay", "our pay", "wages", "wage", "paycheck", "paycheque", "payslip", "got paid",
          "get paid", "paid by my employer", "gehalt", "lohn"),
         ("salary", "wages", "payroll"),
         (),
         ("salary", "sal", "wages", "payroll", "gehalt", "lohn", "bezuge")),
    Kind("interest", "interest",
         ("interest", "interest earned", "interest paid", "savings interest", "zinsen"),
         ("interest",),
         (),
         ("interest", "zinsen", "habenzinsen")),
    Kind("tax", "tax",
         ("tax refund", "tax rebate", "tax back", "hmrc", "the taxman", "steuer", "steuererstattung",
          "tax return"),
         ("tax", "taxes"),
         ("HMRC", "HM Revenue", "Finanzamt"),
         ("hmrc", "tax", "finanzamt", "steuer", "paye")),
    Kind("cash", "cash withdrawals",
         ("cash", "cash withdrawals", "cashpoint", "atm", "cash machine", "the cash machine", "withdrawals",
          "bargeld", "cash out", "took out cash", "take out cash"),
         ("cash", "atm", "cash withdrawal", "bargeld"),
         (),
         ("atm", "cash", "cashpoint", "withdrawal", "bargeld", "geldautomat", "cash machine", "notemachine",
          "sskm ga", "link atm")),
    Kind("fees", "bank fees and charges",
         ("bank fees", "bank charges", "fees", "charges", "fee", "overdraft fees", "overdraft charges",
          "interest charged", "gebühren", "kontoführung"),
         ("fees", "bank charges", "charges", "bank fees", "gebühren", "fees & charges"),
         (),
         ("fee", "fees", "charge", "charges", "gebühr", "gebuhr", "entgelt", "overdraft", "kontoführung",
          "kontofuhrung", "interest")),
    Kind("education", "education",
         ("education", "courses", "course", "books", "tuition", "school", "university", "learning"),
         ("education", "learning", "bildung", "books"),
         ("Udemy", "Coursera", "Waterstones", "Open University", "Duolingo", "Skillshare", "MasterClass", "Thalia"),
         ("tuition", "course", "school", "university", "college", "academy", "books")),
    Kind("childcare", "childcare",
         ("childcare", "nursery", "kids", "children", "kita", "babysitter", "school fees"),
         ("childcare", "children", "kids", "family", "kita"),
         ("Bright Horizons", "Busy Bees", "Kita"),
         ("nursery", "kita", "childcare", "babysit", "kindergarten")),
    Kind("car", "the car",
         ("the car", "car", "car costs", "parking", "car insurance", "mot", "car repairs", "auto"),
         ("car", "motoring", "auto", "vehicle", "parking", "car & transport"),
         ("RingGo", "JustPark", "PayByPhone", "NCP", "Halfords", "Kwik Fit", "ADAC", "DVLA", "ParkMobile",
          "EasyPark", "APCOA", "Q-Park"),
         ("parking", "car wash", "garage", "mot", "tyres", "parkhaus", "parken")),
)
BY_KEY = {k.key: k for k in KINDS}


@lru_cache(maxsize=1)
def phrase_table() -> tuple[tuple[str, str], ...]:
    """(folded phrase, kind key), longest phrase first."""
    pairs = {(fold(p), k.key) for k in KINDS for p in k.phrases}
    return tuple(sorted(pairs, key=lambda pk: (-len(pk[0]), pk[0])))


def kinds_in(question: str) -> list[tuple[str, str]]:
    """(kind key, the phrase found) for every kind the question names, in order of
    appearance; a phrase inside a longer one found ("gym" in "the gym") counts once; a
    one-word phrase may be misspelt ("cinima")."""
    text = f" {fold(question)} "
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str, str]] = []
    for phrase, key in phrase_table():
        start = text.find(f" {phrase} ")
        while start >= 0:
            span = (start + 1, start + 1 + len(phrase))
            if not any(a < span[1] and span[0] < b for a, b in taken):
                taken.append(span)
                if key not in {k for _, k, _ in found}:
                    found.append((span[0], key, phrase))
                break
            start = text.find(f" {phrase} ", start + 1)
    position = 0
    for word in text.split():
        start = text.find(f" {word} ", position) + 1
        position = start + len(word)
        if len(word) < 5 or any(a <= start < b for a, b in taken):
            continue
        for phrase, key in _one_word_phrases().get(word[:2], ()):
            if phrase != word and misspelt(word, phrase) and key not in {k for _, k, _ in found}:
                taken.append((start, start + len(word)))
                found.append((start, key, word))
                break
    return [(key, phrase) for _, key, phrase in sorted(found)]


@lru_cache(maxsize=1)
def _one_word_phrases() -> dict[str, tuple[tuple[str, str], ...]]:
    """The one-word phrases a misspelling may stand for (five letters or more), by their
    first two letters, which ``misspelt`` requires to match: a word is compared with a
    handful of phrases, not all of them (a 1,200-word question took 0.4 s of CPU)."""
    table: dict[str, list[tuple[str, str]]] = {}
    for phrase, key in phrase_table():
        if " " not in phrase and len(phrase) >= 5:
            table.setdefault(phrase[:2], []).append((phrase, key))
    return {prefix: tuple(pairs) for prefix, pairs in table.items()}


def misspelt(word: str, phrase: str) -> bool:
    """``word`` is ``phrase`` misspelt: the same first two letters, mostly the same letters."""
    from difflib import SequenceMatcher

    if word in _COMMON or abs(len(word) - len(phrase)) > 1:
        return False
    return word[:2] == phrase[:2] and SequenceMatcher(None, word, phrase).ratio() >= 0.8


_COMMON = frozenset("""spend spending spent spends money month monthly months total between during since
before after about their there where which while would could should every other taken token times counting
counted account accounts average transfer transfers transferred payment payments balance biggest largest
saving savings amount amounts things those these people compared compare charge charges charged""".split())


def category_is(kind: Kind, category: str | None) -> bool:
    return bool(category) and fold(category or "") in {fold(c) for c in kind.categories}


@lru_cache(maxsize=64)
def _brand_forms(key: str) -> frozenset[str]:
    """Every way a kind's brands are printed (aliases included), as folded word strings."""
    return frozenset(" ".join(form) for brand in BY_KEY[key].brands for form in variants(brand))


@lru_cache(maxsize=65536)
def _ngrams(text: str) -> frozenset[str]:
    """The folded runs of one to four words of ``text`` (and each run without its spaces)."""
    words = fold(text).split()
    runs = {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, min(len(words), i + 4) + 1)}
    return frozenset(runs | {r.replace(" ", "") for r in runs if " " in r})


def kind_matches(kind: Kind, category: str | None, merchant: str | None, description: str) -> bool:
    """Whether a transaction (its category, merchant and description) is of ``kind``."""
    if category_is(kind, category):
        return True
    printed = _ngrams(" ".join(filter(None, (merchant, description))))
    if _brand_forms(kind.key) & printed:
        return True
    text = f" {fold(' '.join(filter(None, (merchant, description))))} "
    return any(f" {fold(w)} " in text for w in kind.words)

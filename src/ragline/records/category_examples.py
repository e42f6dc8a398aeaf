"""Labelled examples for category inference: descriptions as statements print them,
each with its category in Monzo's taxonomy (``categories.TAXONOMY``). Written for
ragline (no bank's data): mostly merchants *not* in ``merchants.KNOWN``, the kinds
of places and payments a statement holds, so the embedding model can place an
unknown merchant near the ones it resembles."""

from __future__ import annotations

EXAMPLES: tuple[tuple[str, str], ...] = (
    # groceries
    ("FARM SHOP ORGANIC PRODUCE", "groceries"), ("THE VILLAGE GROCER", "groceries"),
    ("NISA LOCAL", "groceries"), ("BUDGENS", "groceries"), ("COSTCUTTER", "groceries"),
    ("ONE STOP STORES", "groceries"), ("FAMILY BUTCHERS", "groceries"), ("FISHMONGER QUAYSIDE", "groceries"),
    ("GREENGROCER FRUIT AND VEG", "groceries"), ("POLISH DELI", "groceries"), ("ASIAN SUPERMARKET", "groceries"),
    ("HALAL MEAT STORE", "groceries"), ("NETTO MARKEN-DISCOUNT", "groceries"), ("PENNY MARKT", "groceries"),
    ("KAUFLAND", "groceries"), ("MONOPRIX", "groceries"), ("JUMBO SUPERMARKTEN", "groceries"),
    ("DUNNES STORES", "groceries"), ("SUPERVALU", "groceries"), ("GETIR GROCERY DELIVERY", "groceries"),
    ("ABEL AND COLE VEG BOX", "groceries"), ("CONVENIENCE STORE", "groceries"),
    # eating out
    ("THE RED LION PUB", "eating_out"), ("DISHOOM KINGS CROSS", "eating_out"), ("HONEST BURGERS", "eating_out"),
    ("FRANCO MANCA", "eating_out"), ("TURTLE BAY", "eating_out"), ("BYRON HAMBURGERS", "eating_out"),
    ("YO SUSHI", "eating_out"), ("CAFE ROUGE", "eating_out"), ("ZIZZI", "eating_out"),
    ("GOURMET BURGER KITCHEN", "eating_out"), ("THE BREAKFAST CLUB", "eating_out"),
    ("INDEPENDENT COFFEE ROASTERS", "eating_out"), ("LOCAL CHIPPY FISH AND CHIPS", "eating_out"),
    ("KEBAB HOUSE", "eating_out"), ("CHINESE TAKEAWAY", "eating_out"), ("INDIAN RESTAURANT TANDOORI", "eating_out"),
    ("THAI KITCHEN", "eating_out"), ("PIZZERIA NAPOLI", "eating_out"), ("BAECKEREI KONDITOREI", "eating_out"),
    ("BRASSERIE", "eating_out"), ("COCKTAIL BAR", "eating_out"), ("CRAFT BEER TAPROOM", "eating_out"),
    ("GAIL'S BAKERY", "eating_out"), ("PAUL BAKERY", "eating_out"), ("TACO BELL", "eating_out"),
    ("POPEYES", "eating_out"), ("WINGSTOP", "eating_out"), ("BURRITO BAR", "eating_out"),
    # transport
    ("CITY CAR PARK", "transport"), ("PAY AND DISPLAY PARKING", "transport"), ("ESSO SERVICE STATION", "transport"),
    ("JET PETROL STATION", "transport"), ("GREATER ANGLIA TRAINS", "transport"), ("SOUTHERN RAILWAY", "transport"),
    ("ARRIVA BUS", "transport"), ("METROLINK TRAM", "transport"), ("ADDISON LEE TAXI", "transport"),
    ("FREE NOW CAB", "transport"), ("POD POINT EV CHARGING", "transport"), ("DART CHARGE TOLL", "transport"),
    ("DVLA VEHICLE TAX", "transport"), ("KWIK FIT TYRES", "transport"), ("HALFORDS AUTOCENTRE", "transport"),
    ("SANTANDER CYCLES", "transport"), ("ZIPCAR", "transport"), ("ENTERPRISE CAR HIRE", "transport"),
    ("MEGABUS", "transport"), ("NATIONAL EXPRESS COACH", "transport"), ("RATP PARIS METRO", "transport"),
    # bills
    ("RENT PAYMENT LANDLORD", "bills"), ("LETTING AGENT RENT", "bills"), ("MORTGAGE PAYMENT", "bills"),
    ("LEEDS CITY COUNCIL TAX", "bills"), ("SOUTHERN WATER", "bills"), ("SCOTTISH POWER", "bills"),
    ("SHELL ENERGY BROADBAND", "bills"), ("PLUSNET BROADBAND", "bills"), ("HYPEROPTIC", "bills"),
    ("COMMUNITY FIBRE", "bills"), ("SMARTY MOBILE", "bills"), ("VOXI", "bills"), ("LEBARA MOBILE", "bills"),
    ("HOME INSURANCE PREMIUM", "bills"), ("LV INSURANCE", "bills"), ("CHURCHILL CAR INSURANCE", "bills"),
    ("PET INSURANCE", "bills"), ("STADTWERKE STROM", "bills"), ("VATTENFALL", "bills"),
    ("SERVICE CHARGE MANAGEMENT CO", "bills"), ("ICLOUD STORAGE", "bills"), ("GOOGLE STORAGE", "bills"),
    # entertainment
    ("PICTUREHOUSE CINEMA", "entertainment"), ("NATIONAL THEATRE", "entertainment"),
    ("SEE TICKETS", "entertainment"), ("EVENTBRITE", "entertainment"), ("SKIDDLE", "entertainment"),
    ("DICE FM TICKETS", "entertainment"), ("TENPIN BOWLING", "entertainment"), ("ESCAPE ROOM", "entertainment"),
    ("CRAZY GOLF", "entertainment"), ("NATURAL HISTORY MUSEUM SHOP", "entertainment"),
    ("LONDON ZOO", "entertainment"), ("THEME PARK TICKETS", "entertainment"), ("TWITCH", "entertainment"),
    ("PARAMOUNT PLUS", "entertainment"), ("CRUNCHYROLL", "entertainment"), ("APPLE MUSIC", "entertainment"),
    ("TIDAL MUSIC", "entertainment"), ("EPIC GAMES STORE", "entertainment"), ("KINDLE UNLIMITED", "entertainment"),
    ("FOOTBALL CLUB TICKET OFFICE", "entertainment"), ("COMEDY CLUB", "entertainment"),
    # shopping
    ("SPORTS DIRECT", "shopping"), ("JD SPORTS", "shopping"), ("NEW LOOK", "shopping"), ("RIVER ISLAND", "shopping"),
    ("HOMEBASE", "shopping"), ("DUNELM", "shopping"), ("THE RANGE", "shopping"), ("B AND M RETAIL", "shopping"),
    ("POUNDLAND", "shopping"), ("HOBBYCRAFT", "shopping"), ("APPLE STORE", "shopping"),
    ("SAMSUNG ONLINE STORE", "shopping"), ("MEDIAMARKT", "shopping"), ("FNAC", "shopping"),
    ("VINTED", "shopping"), ("DEPOP", "shopping"), ("SHEIN", "shopping"), ("ZALANDO", "shopping"),
    ("GARDEN CENTRE", "shopping"), ("CHARITY SHOP", "shopping"), ("SECOND HAND BOOKSHOP", "shopping"),
    ("PET SHOP PETS AT HOME", "shopping"), ("OFFICE SUPPLIES", "shopping"),
    # personal care
    ("HAIR SALON", "personal_care"), ("TRADITIONAL BARBERS", "personal_care"), ("NAIL BAR", "personal_care"),
    ("BEAUTY SALON", "personal_care"), ("DAY SPA MASSAGE", "personal_care"), ("DENTAL PRACTICE", "personal_care"),
    ("OPTICIANS", "personal_care"), ("LLOYDS PHARMACY", "personal_care"), ("APOTHEKE", "personal_care"),
    ("PHARMACIE", "personal_care"), ("YOGA STUDIO", "personal_care"), ("CLIMBING WALL", "personal_care"),
    ("FITNESS FIRST", "personal_care"), ("ANYTIME FITNESS", "personal_care"), ("BODY SHOP", "personal_care"),
    ("LUSH COSMETICS", "personal_care"), ("PHYSIOTHERAPY CLINIC", "personal_care"),
    ("PRIVATE GP CLINIC", "personal_care"), ("SWIMMING POOL LEISURE CENTRE", "personal_care"),
    # holidays
    ("WIZZ AIR", "holidays"), ("VUELING", "holidays"), ("KLM ROYAL DUTCH AIRLINES", "holidays"),
    ("AIR FRANCE", "holidays"), ("EMIRATES", "holidays"), ("HOLIDAY INN", "holidays"), ("IBIS HOTEL", "holidays"),
    ("YHA HOSTEL", "holidays"), ("HOSTELWORLD", "holidays"), ("HOTEL", "holidays"), ("AIRPORT DUTY FREE", "holidays"),
    ("WORLD DUTY FREE", "holidays"), ("HERTZ AIRPORT", "holidays"), ("SKYSCANNER", "holidays"),
    ("LASTMINUTE COM", "holidays"), ("HOLIDAY COTTAGES", "holidays"), ("CAMPSITE", "holidays"),
    ("TRAVEL INSURANCE", "holidays"), ("SKI PASS", "holidays"), ("PARK INN", "holidays"),
    # cash
    ("CASH WITHDRAWAL", "cash"), ("ATM WITHDRAWAL", "cash"), ("LINK ATM", "cash"), ("CASHPOINT", "cash"),
    ("GELDAUTOMAT BARGELD", "cash"), ("CASH MACHINE", "cash"),
    # income
    ("SALARY", "income"), ("PAYROLL", "income"), ("WAGES", "income"), ("HMRC TAX REFUND", "income"),
    ("PENSION PAYMENT", "income"), ("DIVIDEND", "income"), ("INTEREST PAID", "income"), ("CHILD BENEFIT", "income"),
    ("UNIVERSAL CREDIT", "income"), ("FREELANCE INVOICE PAYMENT", "income"), ("CASHBACK REWARD", "income"),
    # transfers
    ("TRANSFER TO JOINT ACCOUNT", "transfers"), ("TRANSFER FROM CURRENT ACCOUNT", "transfers"),
    ("MOBILE TRANSFER", "transfers"), ("PAYMENT TO FRIEND", "transfers"), ("SPLITWISE SETTLE UP", "transfers"),
    ("REVOLUT TOP UP", "transfers"), ("WISE TRANSFER", "transfers"), ("OWN ACCOUNT TRANSFER", "transfers"),
    # savings
    ("SAVINGS POT", "savings"), ("TO SAVINGS ACCOUNT", "savings"), ("ISA DEPOSIT", "savings"),
    ("MONEYBOX", "savings"), ("PLUM SAVINGS", "savings"), ("CHIP SAVINGS", "savings"), ("PREMIUM BONDS NS&I", "savings"),
    ("ROUND UP SAVINGS", "savings"), ("RAINY DAY POT", "savings"),
    # charity
    ("DONATION", "charity"), ("HOSPICE", "charity"), ("WATERAID", "charity"), ("GREENPEACE", "charity"),
    ("UNICEF", "charity"), ("MIND CHARITY", "charity"), ("AGE UK", "charity"), ("GOFUNDME", "charity"),
    ("DOGS TRUST", "charity"), ("BRITISH HEART FOUNDATION", "charity"),
    # family
    ("NURSERY FEES", "family"), ("CHILDCARE", "family"), ("SCHOOL DINNER MONEY", "family"),
    ("SCHOOL UNIFORM", "family"), ("TOYS R US", "family"), ("SMYTHS TOYS", "family"), ("KIDS CLUB", "family"),
    ("BABYSITTER", "family"), ("MOTHERCARE", "family"), ("PARENTPAY", "family"),
    # gifts
    ("FLORIST", "gifts"), ("GIFT SHOP", "gifts"), ("NOT ON THE HIGH STREET", "gifts"), ("WEDDING GIFT LIST", "gifts"),
    ("BIRTHDAY PRESENT", "gifts"), ("GIFT CARD", "gifts"), ("THORNTONS CHOCOLATES", "gifts"),
    # finances
    ("CREDIT CARD PAYMENT", "finances"), ("AMEX PAYMENT", "finances"), ("BARCLAYCARD", "finances"),
    ("LOAN REPAYMENT", "finances"), ("KLARNA", "finances"), ("CLEARPAY", "finances"), ("OVERDRAFT INTEREST", "finances"),
    ("MONTHLY ACCOUNT FEE", "finances"), ("HMRC SELF ASSESSMENT", "finances"), ("VANGUARD INVESTMENT", "finances"),
    ("TRADING 212", "finances"), ("COINBASE", "finances"), ("NON-STERLING TRANSACTION FEE", "finances"),
    # expenses
    ("BUSINESS TRAVEL EXPENSE", "expenses"), ("CLIENT LUNCH EXPENSE", "expenses"), ("CO-WORKING SPACE", "expenses"),
    ("WEWORK", "expenses"), ("CONFERENCE REGISTRATION", "expenses"),
    # general
    ("POST OFFICE", "general"), ("ROYAL MAIL", "general"), ("DRY CLEANERS", "general"), ("KEY CUTTING COBBLER", "general"),
    ("LAUNDRETTE", "general"), ("PRINT SHOP", "general"), ("PASSPORT OFFICE", "general"),
)

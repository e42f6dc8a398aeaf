"""What the offline planner (``records.parser``) listens for in a money question: the
words for which money (spending, income, savings, transfers, net), the metric (count,
average, largest, list, comparison, share, recurring cost), the grouping, accounts,
exclusions, a balance's day, and where a name or a place follows ("at Costa", "in
Munich"). Patterns only; the planner decides what they mean together."""

from __future__ import annotations

import re

from .periods import MONTHS


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# -- which money --------------------------------------------------------------------
NET = _rx(r"\bnet\b(?! of)|\bcash ?flow\b|\bleft over\b|\bsurplus\b|\bdeficit\b|\bearn\w* more than\b|"
          r"\bspen[dt]\w* more than (i |we )?(earn|make|made|get)|\bincome (vs|versus|and|against|minus|compared)\b|"
          r"\bmoney in (vs|versus|and|against|compared)\b|\bcame in and\b|\bin vs out\b|\bincome .* expenses\b")
SAVE_NET = _rx(r"\bhow much (did|have|do|am) (i|we) (sav\w*|manag\w* to save)\b(?! (for|in|into|towards?|to)\b)|"
               r"\bam i saving\b(?! (for|in|into|towards?|to)\b)|\bdid i save\b(?! (for|in|into|towards?|to)\b)")
SAVINGS_NET = _rx(r"\bnet of (what|the money|money) (i|we) (took|take|have taken|withdr\w*)|\bless (what|the money) "
                  r"(i|we) (took|withdr\w*)|\bminus (withdrawals|what i took)")
SAVINGS_OUT = _rx(r"\b(taken|took|take|withdr[ae]wn?|withdrawals?|moved|transferr?ed|pulled)\b.*\b(out of|from) "
                  r"(my |the |our )?(savings?|saver|isa|pots?)\b|\b(dipped|dip) into (my )?savings\b")
SAVINGS = _rx(r"\b(in ?to|to|towards?) (my |the |our )?(savings?|saver|isa|pots?|vault|rainy day|emergency fund)\b|"
              r"\bsavings? (account|pot|transfers?|contributions?|deposits?)\b|\bput (away|aside)\b|"
              r"\bset aside\b|\bsaved (away|up)?\s*for\b|\bsav(e|ing) (up )?for\b|\bmoved? .*\bsavings\b|"
              r"\btransferr?\w* .*\bsavings\b|\bput .*\bsavings\b|\bsavings\b")
IN = _rx(r"\b(pa(y|id)|put|transferr?\w*|sent|moved?) (money )?in ?to (the|our|my) \w+( \w+)? (account|card)\b|"
         r"\bpa(y|id) me back\b|\bpaid (me|us)\b|\bsent (me|us)\b|"
         r"\bmoney (came )?in ?to\b|\bcredits?\b|\bdeposits?\b|\bgave (me|us)\b|\bowe[sd]? me\b|\bpay back\b")
INCOME = _rx(r"\b(income|earn\w*|salary|salaries|wages?|pay ?check|pay ?cheque|payslip|got paid|get paid|"
             r"paid by|was i paid|were we paid|received|receive|came in|come in|comes in|money in|incoming|"
             r"dividends?|interest|pay ?day|bonus|pension|benefits?|my pay|our pay|pays (me|us|my)|"
             r"tax refund|tax rebate|hmrc|child benefit|universal credit|payout|pay(s)? my|sold|selling)\b|"
             r"\b(how much|what) (did|have|do) (i|we) (make|made)\b(?! (in )?(payments|purchases))|"
             r"\bmade (from|selling|on)\b")
REFUNDS = _rx(r"\brefund(s|ed)?\b|\bmoney back\b|\breimburse\w*\b|\bcashback\b|\bcredited back\b")
TRANSFER_OUT = _rx(r"\btransf\w*\b|\bsent\b|\bmoved?\b|\bpaid (over )?to (my )?(credit card|own)\b")
TRANSFER_IN = _rx(r"\btransf\w* (in|from)\b|\bfrom (my )?(savings|other account|joint)\b|\bmoved .* from\b|"
                  r"\bin from\b")

# -- which metric ---------------------------------------------------------------------
BALANCE = _rx(r"\bbalances?\b|\bhow much (money )?(do|have|did|had) (i|we) (have|got|had)\b|\bhow much (money )?"
              r"(is|was) (left )?(in|on) (my|our|the)\b|\bmoney (do i have|have i got)\b|\bhow much (money )?is left\b|"
              r"\bin the bank\b|\bam i (in|into) (my )?overdraft\b|\bhow much do i have\b|\bkontostand\b|"
              r"\bwhat(?:'s| is| was) in (my|our|the)\b.*\b(account|savings|pots?|saver|isa)\b|"
              r"\bhow much (is|was) (in )?(my|our|the) .*\b(pots?|savings|saver|account)\b(?!.*\b(spen[dt]|paid)\b)|"
              r"\b(worth|altogether)\b.*\b(accounts|in total)\b(?=.*\b(have|got)\b)")
COUNT = _rx(r"\bhow many\b(?! (euros?|pounds?|dollars?|francs?|quid)\b)|\bhow often\b|\bnumber of\b|\bcount\b|"
            r"\bhow frequently\b")
AVERAGE = _rx(r"\baverage\b|\bon average\b|\btypical(ly)?\b|\busually\b|\bnormally\b|\bmean\b|\bavg\b|"
              r"\bper (day|week|month)\b.*\bin\b|\ba (day|week)\b")
PER = _rx(r"\b(?:per|a|each|every|by the|in an? (?:average|typical|normal)) (month|week|day|year)\b|"
          r"\b(monthly|weekly|daily|yearly) (average|spend|spending|cost|outgoings)\b|\b(?:spend|cost|pay)\w* "
          r"(monthly|weekly|daily|yearly|annually)\b")
MAX = _rx(r"\b(biggest|largest|most expensive|highest|priciest|costliest|maximum|max|single largest|"
          r"largest single|biggest single)\b|\bcost me the most\b|\bmost (i'?ve|i have|i|we'?ve|we) (ever )?"
          r"(spent|paid)\b|\bmost .* on (one|a single)\b")
MIN = _rx(r"\b(smallest|cheapest|lowest|least expensive|minimum|tiniest)\b")
LIST = _rx(r"^\s*(list|show|itemi[sz]e|give me (a list|all)|what were (all )?(the|my)|which (transactions|"
           r"payments|purchases))\b|\blist (of )?(all )?(my )?(the )?(transactions|payments|purchases)\b|"
           r"\bwhat did i buy\b|\bshow (me )?(all|every|each)\b|\beach (payment|transaction)\b|\ball (the|my) "
           r"(transactions|payments|purchases)\b")
COMPARE = _rx(r"\bcompar\w*|\bvs\.?\b|\bversus\b|\bmore than\b|\bless than\b|\bfewer than\b|\bdifference\b|"
              r"\bchang(e|ed|es)\b|\bup or down\b|\bgo(ne|ing)? (up|down)\b|\bwent (up|down)\b|\bincreas\w*|"
              r"\bdecreas\w*|\bagainst\b|\bthan (in|at|on|last|the)\b|\bor (at|on|in)\b|\b(more|less) \w+ or\b|"
              r"\bwhich .* more\b|\bmore .* or\b")
SHARE = _rx(r"\bpercent(age)?\b|\bshare\b|\bproportion\b|\bfraction\b|\bwhat part of\b|%")
RECURRING = _rx(r"\b(recurring|subscriptions?|direct debits?|standing orders?|regular (payments?|bills?|"
                r"charges?|outgoings)|repeat\w*|memberships?|fixed costs?)\b|\b(pay|paying|put)\b.*\b(every|each) "
                r"month\b|\b(a|per|each|every) month now\b|\bmonthly (bill|donation|payment|cost|charge|fee|"
                r"subscription|rent|contribution|transfer|energy|phone|gym|membership)\w*\b")
COSTS_ME = _rx(r"\b(cost|costs|costing) (me|us)\b(?!.* (in total|altogether|so far|this year|last year))|"
               r"\bwhat (do|does) .* cost\b|\bhow much (is|are) (my|the|our) .* (a|per|each) month\b|"
               r"\bhow much (do|does) .* cost (me|us)?\b|\bhow much (is|are) (my|our|the) [\w' ]+\??$|"
               r"\bhow much (do|does) (i|we) pay\b.*\b(a|per|each|every) month\b")
PAST_SUM = _rx(r"\b(did|have|has|had) (i|we)\b|\bspent\b|\bin total\b|\baltogether\b|\bso far\b|"
               r"\bwent\b|\blast (month|year|week)\b|\bsince\b|\bgone\b")
NOW = _rx(r"\b(right )?now\b|\bcurrent(ly)?\b|\bat the moment\b|\bthese days\b|\bstill\b")
TOP = _rx(r"\bwhere (do|did|does|am|was) (all )?(my |i |the )?(money )?(go|going|spending|spend|went)\b|"
          r"\b(most|top|biggest|largest|main|highest)\b.*\b(categor\w*|merchants?|shops?|stores?|retailers?|"
          r"compan(y|ies)|places?|payees?|expenses?|outgoings?)\b|\bwhich (categor\w*|merchants?|shops?|stores?|"
          r"retailers?|compan(y|ies)|places?|payees?|months?)\b|\bwho (do|did) (i|we) pay\b|\bwho got\b|"
          r"\bwhat (do|did) (i|we) spend (the )?most\b|\bspend(ing)? (the )?most\b|\bshop the most\b|"
          r"\bbreak ?down\b|\bby (category|merchant|shop|store|month|account)\b|\beating up\b|"
          r"\btakes? up most\b|\bcategori[sz]e\b|\btop \d+\b|\btop (three|five|ten)\b|\bmost money\b|"
          r"\bmost of my\b|\bwhere does my money go\b|\beach (supermarket|shop|store|merchant|category)\b")
WHO = _rx(r"^\s*(who|whom)\b|\bwho('s| is| are| do| did| does)\b|\bwhat (was|is|were) the [\w ]+ called\b|"
          r"\bwhere did (i|we) (buy|get|book|order)\b|\b(supplier|provider|landlord|employer|letting agent)\b|"
          r"\bwhich (company|shop|store|merchant|supplier|provider|bank|app|website|hotel|restaurant)\b|"
          r"\bwhat (company|shop|store|hotel|restaurant)\b|\bname of the\b")
MERCHANT_WORDS = _rx(r"\b(merchants?|shops?|stores?|retailers?|compan(y|ies)|places?|payees?|vendors?|"
                     r"supermarkets?|who (do|did) (i|we) pay|who got|shop the most|where did i shop)\b")
BY_MONTH = _rx(r"\b(each|every|per|by) month\b|\bmonth by month\b|\bmonth[- ]over[- ]month\b|\bwhich month\b|"
               r"\bmonth to month\b|\bmonthly (spending|trend|breakdown)\b|\btrend\b|\bover the last (few|\d+|"
               r"two|three|four|five|six) months\b")
EACH_ACCOUNT = _rx(r"\b(each|every|per|by) accounts?\b|\bon each\b|\baccount by account\b")
EXCLUDE = _rx(r"\b(?:apart from|except(?: for)?|excluding|exclude|not counting|not including|other than|besides|"
              r"without|leaving out|ignoring|but not)\s+(?:the |my |our |any )?([^,?.;]+?)(?=[,?.;]|$| in \w+ \d{4}|"
              r" (?:in|on|during|since|this|last|from)\b)")
WITH_FEES = _rx(r"\b(including|incl\.?|with|plus|and) (the |its |their |any )?(foreign |non-sterling |bank |"
                r"conversion |exchange )?(transaction )?(fees?|charges?)\b")
ACCOUNT_PHRASE = _rx(r"\b(?:on|from|in|out of|into|to|for|with|of)?\s*(?:the|our|my)\s+((?:joint|savings?|current|"
                     r"monzo|easy saver|saver|credit card|calder|isa|everyday|business)(?: (?:account|card|"
                     r"acct))?)\b|\b((?:joint|savings|current) (?:account|card))\b")
BALANCE_DAY = _rx(r"\b(?:at|on) the (start|beginning|end) of (" + "|".join(sorted(MONTHS, key=len, reverse=True))
                  + r")\b|\b(start|beginning|end) of (" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b")

# Words never a merchant, place or printed word to look for.
QUESTION_WORDS = set("""a an the i me my mine we our us you your it its this that these those what whats which who
whom whose how much many often did do does done doing have has had having was were is are am be been being will
would could should can may might shall spend spent spending pay paid paying payment payments cost costs costing
buy bought buying on at in for to from of with by and or vs versus than more less most least total totals sum
all any some each every per month months monthly week weeks weekly year years yearly day days daily last this next
past previous so far since until till between during over under about around across get got money go went gone
going transactions transaction purchase purchases expenses expense outgoings bills bill much amount amounts
compared compare comparison difference average typical usually normally biggest largest smallest cheapest highest
lowest single one two three four five six seven eight nine ten twelve twenty thirty first second time times
trip trips visit visits shop shopping store stores merchant merchants place places category categories altogether
overall together both either ago recently lately currently now today yesterday tomorrow also just only really
quite spend did there then when where why which out up down off back left right again still ever never yet
not no yes please tell show list give let know want need see find look like make made use used put take took
number count balance account accounts current savings saving save saved income earn earned salary received
refund refunds transfer transfers transferred moved net charged charge charges fee fees cash card bank
called name named whos wheres whats hows theres start beginning end euros euro pounds pound quid dollars
sterling gbp eur usd each both separately between apart except excluding counting including go went
weekend holiday trip summer winter spring autumn partner into onto upon""".split())
NAME_AFTER = re.compile(r"\b(?i:at|to|from|with|pay|paid|paying|gave|give|charge[ds]?|by)\s+"
                         r"((?:[A-Za-z][\w'’&+.-]*)(?:\s+[A-Z][\w'’&+.-]*)*)")
CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][\w'’&+.-]*[\w+](?:\s+[A-Z][\w'’&+.-]*)*)")
PLACE_AFTER = re.compile(r"\b(?i:in|near|around|across|throughout|while in|when (?:i|we) (?:was|were) in|visiting|"
                          r"trip to|tickets? to|train to|flights? to|holiday in|weekend in)\s+"
                          r"([A-Za-z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)*)")
PURCHASES = _rx(r"\b(purchases?|bought|buys?|card payments?)\b")
EDGE_WORDS = frozenset("""the a an in on at to of for my our and or did we i how much spend spent pay paid have has
what which who is are was were it this that from with by much many""".split())
LIMIT = _rx(r"\btop (\d+|three|five|ten|two|four)\b|\b(\d+|three|five|ten|two|four) (largest|biggest|most "
             r"expensive|smallest|cheapest|highest|most)\b|\b(largest|biggest|last|latest|first) (\d+|three|five|ten|"
             r"two|four)\b")
RECURRING_KINDS = ("subscriptions", "gym", "bills", "phone", "energy", "water", "rent", "insurance", "charity",
                    "salary")

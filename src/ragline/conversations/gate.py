"""Should this message retrieve at all? (seed 001's intent check, seed 004's
``shouldUseRAG``.) Greetings, thanks, goodbyes and chit-chat skip retrieval;
questions and requests for information use it. No model: word lists in several
languages plus the shape of the message. Measured on a labelled set
(``bench/gate_set.tsv``, ``bench/gate.py``; accuracy in ``docs/conversations.md``).

The rule, in order:

1. Nothing but greeting / thanks / farewell / acknowledgement / chit-chat
   phrases (and punctuation or emoji) → skip.
2. A question mark, a question word, or a request verb ("explain", "show",
   "list"…) → retrieve.
3. Two or more content words (a topic) → retrieve; otherwise skip.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..analyzer import STOPWORDS


@dataclass(frozen=True)
class GateDecision:
    retrieve: bool
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"retrieve": self.retrieve, "reason": self.reason}


# Whole phrases that are social, not informational (lowercase, accents kept).
SOCIAL = [
    # English
    "hi", "hello", "hey", "hiya", "howdy", "yo", "good morning", "good afternoon", "good evening", "good night",
    "morning", "evening", "greetings", "hi there", "hello there", "hey there",
    "thanks", "thank you", "thank you so much", "thanks a lot", "many thanks", "thx", "ty", "cheers", "much appreciated",
    "great thanks", "ok thanks", "okay thanks", "thanks again", "perfect thanks", "awesome thanks",
    "bye", "goodbye", "bye bye", "see you", "see you later", "see ya", "later", "take care", "have a nice day",
    "have a good day", "good bye", "farewell", "talk to you later", "ttyl",
    "ok", "okay", "k", "kk", "sure", "yes", "no", "yep", "nope", "yeah", "nah", "cool", "great", "nice", "awesome",
    "perfect", "got it", "i see", "understood", "makes sense", "alright", "all right", "fine", "good", "wow", "lol",
    "haha", "hmm", "oh", "ah", "oops", "sorry", "no problem", "no worries", "never mind", "nevermind",
    "how are you", "how are you doing", "how's it going", "hows it going", "what's up", "whats up", "sup",
    "how do you do", "nice to meet you", "who are you", "what are you", "are you a bot", "are you human",
    "are you a robot", "what is your name", "what's your name", "whats your name", "tell me a joke",
    "you are great", "you're great", "youre great", "you are awesome", "good job", "well done", "good bot",
    "i love you", "that's all", "thats all", "that is all", "nothing else", "test", "testing",
    # Dutch
    "hallo", "hoi", "goedemorgen", "goedemiddag", "goedenavond", "dag", "doei", "tot ziens", "bedankt",
    "dank je", "dank je wel", "dank u", "dank u wel", "hoe gaat het", "prima", "oké", "top", "tot later",
    # German
    "guten tag", "guten morgen", "guten abend", "servus", "moin", "danke", "danke schön", "danke schon",
    "vielen dank", "tschüss", "tschuss", "auf wiedersehen", "wie geht's", "wie gehts", "wie geht es dir", "alles klar",
    "bis später", "bis bald", "ja", "nein",
    # French
    "bonjour", "bonsoir", "salut", "coucou", "merci", "merci beaucoup", "au revoir", "à bientôt", "a bientot",
    "ça va", "ca va", "comment ça va", "comment ca va", "d'accord", "bonne journée", "bonne soirée", "oui", "non",
    # Spanish / Portuguese / Italian
    "hola", "buenos días", "buenos dias", "buenas tardes", "buenas noches", "gracias", "muchas gracias", "adiós",
    "adios", "hasta luego", "qué tal", "que tal", "cómo estás", "como estas", "vale", "sí", "olá", "ola", "obrigado",
    "obrigada", "tchau", "tudo bem", "bom dia", "boa tarde", "boa noite", "ciao", "grazie", "grazie mille",
    "buongiorno", "buonasera", "arrivederci", "come stai",
]
_SOCIAL_WORDS = frozenset(w for phrase in SOCIAL for w in phrase.split())
_SOCIAL_PHRASES = sorted(SOCIAL, key=len, reverse=True)
ADDRESS = frozenset([
    "bot", "assistant", "there", "ragline", "you", "all", "again", "so", "much", "very", "a", "lot", "everyone",
    "team", "folks", "buddy"
])

QUESTION_WORDS = frozenset([
    "what", "what's", "whats", "which", "who", "whom", "whose", "when", "where", "why", "how", "how's", "can",
    "could", "would", "should", "is", "are", "am", "do", "does", "did", "will", "shall", "may", "might", "was",
    "were", "has", "have", "had", "any", "wat", "welke", "wie", "wanneer", "waar", "waarom", "hoe", "hoeveel",
    "kan", "kun", "mag", "moet", "is", "zijn", "heb", "was", "welche", "welcher", "welches", "wer", "wann", "wo",
    "warum", "wieso", "wie", "wieviel", "kann", "können", "darf", "muss", "ist", "sind", "gibt", "que", "quoi",
    "quel", "quelle", "quels", "quelles", "qui", "quand", "où", "pourquoi", "comment", "combien", "est-ce", "puis",
    "peut", "faut", "qué", "cuál", "cuáles", "quién", "cuándo", "dónde", "por", "cuánto", "cuánta", "cuántos",
    "cómo", "puedo", "puede", "hay", "o", "qual", "quais", "quem", "quando", "onde", "porque", "quanto", "quanta",
    "como", "posso", "pode", "há", "che", "cosa", "quale", "chi", "quando", "dove", "perché", "quanto", "come",
    "posso", "può", "c'è"
])
REQUEST_VERBS = frozenset([
    "explain", "describe", "list", "show", "give", "tell", "find", "summarize", "summarise", "compare", "define",
    "calculate", "check", "help", "need", "want", "looking", "search", "lookup", "open", "apply", "order", "cancel",
    "block", "freeze", "report", "transfer", "send", "send", "pay", "withdraw", "request", "change", "update",
    "reset", "close", "leg", "toon", "geef", "vertel", "zoek", "erkläre", "zeige", "gib", "finde", "suche", "nenne",
    "explique", "montre", "donne", "trouve", "liste", "explica", "muestra", "dame", "dime", "busca", "lista",
    "explique", "mostre", "diga", "spiega", "mostra", "dimmi", "trova"
])

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    return " ".join(_WORD.findall(text))


def _only_social(norm: str) -> bool:
    rest = f" {norm} "
    for phrase in _SOCIAL_PHRASES:
        rest = rest.replace(f" {phrase} ", " ")
        rest = rest.replace(f" {phrase} ", " ")  # adjacent repeats ("bye bye bye")
    leftover = [w for w in rest.split() if w not in ADDRESS]
    return not leftover


def should_retrieve(message: str) -> GateDecision:
    """Whether ``message`` needs retrieval, and why (the reason is shown in the report)."""
    text = message.strip()
    norm = _normal(text)
    if not norm:
        return GateDecision(False, "no words (punctuation or emoji only)")
    words = norm.split()
    if _only_social(norm):
        return GateDecision(False, "greeting or small talk")
    if "?" in text or "？" in text or "¿" in text:
        return GateDecision(True, "a question")
    opening = words[0] in ("and", "so", "but", "en", "und", "et", "y", "e")  # "and how much is it"
    if words[0] in QUESTION_WORDS or (len(words) > 1 and opening and words[1] in QUESTION_WORDS):
        return GateDecision(True, "a question")
    if any(w in REQUEST_VERBS for w in words[:3]):
        return GateDecision(True, "a request for information")
    content = [w for w in words if w not in STOPWORDS and w not in _SOCIAL_WORDS and len(w) > 1]
    if len(content) >= 2:
        return GateDecision(True, "names a topic")
    if content and any(c.isdigit() for c in text):
        return GateDecision(True, "names a topic")
    return GateDecision(False, "no question and no topic")

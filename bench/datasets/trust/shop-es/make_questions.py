#!/usr/bin/env python3
"""Write questions.jsonl from the list below, check every fact against the
source text in src-text/, and assign the dev/test split (stratified by kind,
fixed seed).  Usage: python3 make_questions.py
"""
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240301
DEV_SHARE = 0.4

DOCS = {
    "envios.pdf": "envios.md",
    "devoluciones.pdf": "devoluciones.md",
    "garantia.pdf": "garantia.md",
    "pagos.pdf": "pagos.md",
    "club.pdf": "club.md",
    "tiendas_horarios.pdf": "tiendas_horarios.md",
    "alquiler.pdf": "alquiler.md",
    "tarifas_taller_escaneado.pdf": "tarifas_taller_escaneado.md",
}

# Facts that are deliberately NOT verbatim in the source (natural rewordings a
# correct answer may use, or a value computed from the document). Each one was
# checked by hand; see the comment next to the question.
ALLOWED_NON_VERBATIM = {
    "un año", "dos años", "tres años", "cinco años", "4 euros", "8 euros", "tres meses", "5 y 8", "3 y 5",
    "2 de la tarde", "8 de la tarde", "20 €", "30 euros", "3,5",
    "1000", "1200", "5 euros", "11:00", "17 h", "19 h", "20 h", "14 h", "13 h", "15 h", "9 h",
}

Q = []


def add(kind, question, facts=(), wrong=(), source=None, history=(), covers=None):
    Q.append({"kind": kind, "question": question, "facts": list(facts),
              "wrong_facts": list(wrong), "source": source,
              "history": list(history), "covers_instead": covers})


E, D, G, P, C, T, A, W = ("envios.pdf", "devoluciones.pdf", "garantia.pdf", "pagos.pdf",
                          "club.pdf", "tiendas_horarios.pdf", "alquiler.pdf",
                          "tarifas_taller_escaneado.pdf")

# ---------------------------------------------------------------- answerable
add("answerable", "¿Cuánto cuesta el envío estándar a la península?",
    ["4,95 €", "4,95"], ["9,95 €"], E)
add("answerable", "A partir de qué importe es gratis el envío a Baleares?",
    ["120 €", "120"], ["60 €", "200 €"], E)
add("answerable", "¿Cuál es el plazo de entrega del envío estándar a Canarias?",
    ["5-8 días laborables", "5-8", "5 y 8"], ["2-3 días", "3-5 días"], E)
add("answerable", "cuanto cuesta el envío exprés a la península?",
    ["9,95 €", "9,95"], ["4,95 €"], E)
add("answerable", "Hasta qué hora tengo que confirmar el pedido para que salga del almacén el mismo día?",
    ["13:00", "13 h", "13"], [], E)
add("answerable", "¿Cuánto es la tasa de gestión aduanera (DUA) de los pedidos a Canarias?",
    ["15 €", "15"], ["14,95 €"], E)
add("answerable", "¿Cuánto cuesta enviar una bicicleta completa a Baleares?",
    ["49 €", "49"], ["29 €", "89 €"], E)
add("answerable", "Cuántos días tengo para recoger un pedido en la tienda?",
    ["15 días naturales", "15 días", "15"], ["7 días"], E)
add("answerable", "¿Cuál es el plazo de desistimiento para las compras en la tienda online?",
    ["14 días naturales", "14 días", "14"], ["30 días"], D)
add("answerable", "¿Cuánto cuesta la recogida a domicilio de un paquete que devuelvo desde la península?",
    ["5,95 €", "5,95"], ["11,95 €", "25 €"], D)
add("answerable", "¿Con cuántos km como máximo aceptáis la devolución de una bicicleta?",
    ["20 km", "20"], [], D)
add("answerable", "¿Cuántos años de garantía tienen las bicicletas eléctricas?",
    ["3 años", "tres años"], ["2 años", "1 año"], G)
add("answerable", "¿Qué garantía tienen las baterías de bicicleta eléctrica?",
    ["1 año", "un año", "500 ciclos", "500"], ["3 años", "2 años"], G)
add("answerable", "Cuánto dura la garantía de los cuadros de la marca propia Rodadas",
    ["5 años", "cinco años"], ["2 años", "3 años"], G)
add("answerable", "¿Qué garantía tienen los productos reacondicionados Segunda Vida?",
    ["1 año", "un año"], ["2 años"], G)
add("answerable", "¿Cuál es el importe máximo que se puede pagar con Bizum?",
    ["1.000 €", "1.000", "1000"], ["300 €"], P)
add("answerable", "Qué recargo tiene el pago a plazos en 12 meses?",
    ["8,9 %", "8,9"], ["4,5 %", "12,5 %"], P)
add("answerable", "¿Qué recargo tiene el pago contra reembolso?",
    ["3,50 €", "3,50", "3,5"], [], P)
add("answerable", "¿Cuál es el importe mínimo de compra para financiar en 24 meses?",
    ["1.200 €", "1.200", "1200"], ["600 €", "150 €"], P)
add("answerable", "¿Cuánto cuesta la cuota anual del nivel Oro del Club Rodadas?",
    ["25,00 €", "25 €", "25"], [], C)
add("answerable", "¿Qué descuento tienen los socios Básico en la mano de obra del taller?",
    ["10 %", "10"], ["20 %"], C)
add("answerable", "¿Cuántos puntos hacen falta para conseguir un vale de 5 €?",
    ["500 puntos", "500"], [], C)
add("answerable", "Qué vale de cumpleaños reciben los socios Oro?",
    ["15 €", "15"], ["5 €"], C)
add("answerable", "¿Cuál es el horario de la tienda de Zaragoza los sábados?",
    ["17:00-20:00", "17:00", "17 h"], [], T)
add("answerable", "¿Qué horario tiene el taller de lunes a viernes?",
    ["10:00 a 19:00", "19:00", "19 h"], ["20:00"], T)
add("answerable", "¿Qué horario tienen las tiendas el 24 de diciembre?",
    ["10 h a 14 h", "14 h", "14:00"], ["10:00-20:00"], T)
add("answerable", "¿Qué festivos locales cierra la tienda de Valencia?",
    ["19 de marzo", "9 de octubre"], ["29 de enero", "23 de abril"], T)
add("answerable", "¿Cuánto cuesta alquilar una bicicleta eléctrica un día completo?",
    ["45 €", "45"], ["30 €", "12 €"], A)
add("answerable", "¿Cuál es la fianza de una bicicleta de carretera de alquiler?",
    ["150 €", "150"], ["300 €"], A)
add("answerable", "¿Cuánto cuesta el seguro de daños en el alquiler de bicicletas?",
    ["4 € al día", "4 €", "4 euros"], [], A)
add("answerable", "¿Cuánto cuesta el bono de fin de semana con la bicicleta eléctrica?",
    ["80 €", "80"], ["45 €", "55 €"], A)
add("answerable", "¿Cuánto cuesta una puesta a punto básica?",
    ["35 €", "35"], ["65 €"], W)
add("answerable", "¿Cuál es el precio del purgado de freno hidráulico?",
    ["25 € por freno", "25 €", "25"], ["10 €"], W)
add("answerable", "¿Cuánto se cobra por hora de mano de obra en los trabajos que no aparecen en la tarifa del taller?",
    ["32 €", "32"], [], W)
add("answerable", "¿Cuánto cuesta el cambio de cámara en el taller?",
    ["8 €", "8 euros"], ["10 €", "12 €"], W)

# ---------------------------------------------------------------- paraphrase
add("paraphrase", "cuanto me cobrais por traerme el pedido a casa? vivo en Madrid",
    ["4,95 €", "4,95"], ["9,95 €"], E)
add("paraphrase", "cuanto tarda en llegarme un paquete a Mallorca",
    ["3-5 días laborables", "3-5", "3 y 5"], ["2-3 días", "5-8 días"], E)
add("paraphrase", "me arrepentí de unas zapatillas que pedí por la web, cuánto tiempo tengo para mandarlas de vuelta?",
    ["14 días", "14"], [], D)
add("paraphrase", "si vienen a mi casa a por la bici que quiero devolver cuanto me cuesta? vivo en Ibiza",
    ["45 €", "45"], ["25 €", "11,95 €"], D)
add("paraphrase", "la bateria de mi bici electrica ha dejado de cargar a los 14 meses de comprarla, me la cubris?",
    ["1 año", "un año", "500 ciclos"], ["3 años"], G)
add("paraphrase", "cuanto tiempo me cubris si el casco que compre se rompe solo",
    ["2 años", "dos años"], ["3 años", "1 año"], G)
add("paraphrase", "puedo pagar a meses sin que me cobren intereses?",
    ["3 meses", "tres meses"], ["4,5 %"], P)
# 1.200 € x 1,125 = 1.350 € / 24 = 56,25 € (stated in the document)
add("paraphrase", "cuanto pagaria al mes por una bici de 1.200 euros si la pago en dos años",
    ["56,25 €", "56,25"], ["50 €"], P)
add("paraphrase", "se puede pagar con el movil en vuestra web?",
    ["Bizum"], [], P)
add("paraphrase", "cuanto hay que pagar al año por la tarjeta dorada del club?",
    ["25 €", "25"], [], C)
add("paraphrase", "si me apunto al club gratis, cuanto me descuentan en cascos y guantes?",
    ["5 %"], ["10 %"], C)
add("paraphrase", "me dan algo por mi cumple si soy del club normal?",
    ["vale de 5 €", "5 euros"], ["15 €"], C)
add("paraphrase", "a que hora cerrais en Valencia entre semana",
    ["20:00", "20 h", "8 de la tarde"], ["19:00", "14:00"], T)
add("paraphrase", "abris algun domingo por navidades?",
    ["11 h a 19 h", "11 h", "11:00", "19 h"], [], T)
add("paraphrase", "en agosto que horario teneis en las tiendas?",
    ["9:00 a 15:00", "9:00", "15:00", "15 h"], ["10:00-20:00"], T)
add("paraphrase", "cuanto me cobrais por dejarme la bici como nueva, revision a fondo y que me la limpieis",
    ["65 €", "65"], ["35 €"], W)
add("paraphrase", "he pinchado la rueda (no es tubeless), cuanto me cuesta que me lo arregléis?",
    ["8 €", "8 euros"], ["12 €"], W)
add("paraphrase", "me montais la bici que me compre en amazon? cuanto sale",
    ["40 €", "40"], [], W)
add("paraphrase", "cuanto cuesta que me mantengais la horquilla de suspension?",
    ["32 €", "32"], ["35 €", "65 €"], W)
# 2 horas de retraso x 10 € por hora = 20 €
add("paraphrase", "si devuelvo la bici de alquiler dos horas tarde que me cobrais?",
    ["20 €", "10 €"], [], A)
add("paraphrase", "cuanto cuesta alquilar una bici para mi hijo de 7 años todo el dia",
    ["12 €", "12"], ["18 €", "8 €"], A)
add("paraphrase", "hay que dejar dinero en deposito para alquilar una bici de montaña? cuanto?",
    ["150 €", "150"], ["300 €"], A)
add("paraphrase", "necesito la bici arreglada hoy mismo, cuanto me cobrais de mas por la prisa?",
    ["15 €", "15"], [], W)

# ---------------------------------------------------------------- near-miss
ZONAS = "Solo envíos a península, Islas Baleares e Islas Canarias"
TIPOS = "Alquiler de bicicleta urbana, de montaña (BTT), de carretera, eléctrica e infantil"
NIVELES = "Solo dos niveles de socio: Básico (gratis) y Oro (25 € al año)"
TIENDAS = "Solo dos tiendas físicas: Valencia (Avenida del Puerto 112) y Zaragoza (Calle de Miguel Servet 58), más la tienda online"
add("near-miss", "Enviais a Portugal? cuanto cuesta", [], ["4,95 €", "14,95 €"], E, covers=ZONAS)
add("near-miss", "hacéis envíos a Andorra?", [], ["4,95 €", "9,95 €"], E, covers=ZONAS)
add("near-miss", "¿Cuánto cuesta el envío a Ceuta?", [], ["4,95 €", "14,95 €"], E, covers=ZONAS)
add("near-miss", "hacen envios internacionales? a Francia por ejemplo", [], ["4,95 €"], E, covers=ZONAS)
add("near-miss", "cuanto cuesta mandar una bici completa a Melilla", [], ["29 €", "89 €"], E,
    covers="Envío de bicicletas completas solo a península (29 €), Baleares (49 €) y Canarias (89 €)")
add("near-miss", "¿Entregáis en el mismo día, en 2 horas, dentro de Valencia?", [], ["9,95 €"], E,
    covers="Envío exprés en 24 horas a la península (48 horas a Baleares) y recogida en tienda en 24 horas")
add("near-miss", "cuanto cuesta alquilar un tándem por un día?", [], ["18 €", "30 €", "45 €"], A, covers=TIPOS)
add("near-miss", "¿Cuánto cuesta alquilar una bici de gravel para el fin de semana?", [], ["55 €", "50 €"], A, covers=TIPOS)
add("near-miss", "alquilais bicis de carga (cargo bike) para llevar a los crios?", [], ["45 €"], A,
    covers=TIPOS + "; como extras, sillita portabebés y remolque infantil")
add("near-miss", "cuanto cuesta alquilar una bici infantil de 12 pulgadas", [], ["12 €", "3 €"], A,
    covers="Bicicletas infantiles de alquiler con ruedas de 16, 20 y 24 pulgadas")
add("near-miss", "¿Cuánto cuesta alquilar un patinete eléctrico por horas?", [], ["12 €"], A,
    covers="Solo se alquilan bicicletas; la eléctrica cuesta 12 € por hora")
add("near-miss", "cuanto sale alquilar una bici electrica en vuestra tienda de Alicante", [], ["45 €"], A,
    covers="Alquiler solo en las tiendas de Valencia y Zaragoza")
add("near-miss", "Qué ventajas tiene el nivel Platino del club?", [], ["10 %", "20 %", "25 €"], C, covers=NIVELES)
add("near-miss", "que descuento tienen los socios Plata en bicis?", [], ["5 %"], C, covers=NIVELES)
add("near-miss", "¿Tenéis descuentos especiales para clubes ciclistas o equipos?", [], ["5 %", "10 %"], C,
    covers="Descuentos individuales del Club Rodadas, niveles Básico y Oro")
add("near-miss", "teneis tienda en Madrid? en que calle", [], ["Avenida del Puerto 112", "Calle de Miguel Servet 58"], T,
    covers=TIENDAS)
add("near-miss", "¿Qué horario tiene vuestra tienda de Barcelona?", [], ["10:00-20:00"], T, covers=TIENDAS)
add("near-miss", "puedo pagar con PayPal?", [], [], P,
    covers="Tarjeta (Visa, Mastercard, Maestro), Bizum, transferencia, contrarreembolso, pago a plazos y tarjeta regalo")
add("near-miss", "aceptais American Express?", [], [], P,
    covers="Tarjetas Visa, Mastercard y Maestro")
add("near-miss", "se puede pagar con bitcoin?", [], [], P,
    covers="Tarjeta, Bizum, transferencia, contrarreembolso, pago a plazos, tarjeta regalo y efectivo en tienda")
add("near-miss", "puedo financiar la bici a 36 meses? que recargo tiene", [], ["12,5 %", "8,9 %"], P,
    covers="Plazos de 3, 6, 12 y 24 meses")
add("near-miss", "¿Me recogéis la bici para el taller en Castellón?", [], ["10 €"], W,
    covers="Recogida y entrega a domicilio del taller solo dentro de la ciudad de Valencia y la de Zaragoza")

# ---------------------------------------------------------------- off-topic
for q in [
    "que tiempo va a hacer este finde en Valencia?",
    "me pasas una receta de paella valenciana",
    "¿Quién ganó el Tour de Francia el año pasado?",
    "como se hace la declaracion de la renta",
    "¿Cuál es la capital de Australia?",
    "recomiendame una serie para ver esta noche",
    "a que hora sale el AVE de Zaragoza a Madrid mañana",
    "cuantas calorias se queman en una hora de bici",
    "¿Cómo se cambia el aceite de un coche?",
    "traduce 'buenas tardes' al inglés",
]:
    add("off-topic", q)

# ---------------------------------------------------------------- follow-up
add("follow-up", "¿y a Canarias?", ["14,95 €", "14,95"], ["9,95 €"], E,
    ["¿Cuánto cuesta el envío estándar a Baleares?"])
add("follow-up", "y a canarias cuanto?", ["89 €", "89"], ["29 €", "49 €"], E,
    ["Cuánto cuesta enviar una bici completa a la península?"])
add("follow-up", "¿y si soy socio?", ["30 días", "30"], ["14 días"], D,
    ["cuántos días tengo para devolver algo que compré online?"])
add("follow-up", "¿y en 24?", ["12,5 %", "12,5"], ["4,5 %", "8,9 %"], P,
    ["¿Qué recargo tiene pagar a plazos en 6 meses?"])
add("follow-up", "y uno Oro?", ["15 %", "15"], ["10 %"], C,
    ["qué descuento tiene un socio Básico en el alquiler de bicis?"])
add("follow-up", "¿y hasta qué hora está abierta?", ["14:00", "14 h", "2 de la tarde"], ["20:00"], T,
    ["¿A qué hora abre la tienda de Valencia los sábados?"])
add("follow-up", "y el día entero?", ["30 €", "30"], ["8 €", "20 €"], A,
    ["cuanto cuesta alquilar una bici de carretera por horas?"])
add("follow-up", "¿y la completa?", ["65 €", "65"], ["35 €"], W,
    ["cuanto vale la puesta a punto básica?"])
add("follow-up", "¿y para las eléctricas?", ["3 años", "tres años"], ["2 años"], G,
    ["¿Cuánto dura la garantía general de los productos?"])
add("follow-up", "y la de Zaragoza?", ["29 de enero", "23 de abril", "San Valero", "Día de Aragón"],
    ["19 de marzo", "9 de octubre"], T,
    ["qué festivos cierra la tienda de Valencia aparte de los nacionales?"])
add("follow-up", "¿y la de la infantil?", ["30 €", "30 euros"], ["300 €"], A,
    ["¿cuánto es la fianza de la bici eléctrica de alquiler?"])

# ---------------------------------------------------------------- smalltalk
for q in ["hola", "gracias!", "buenos días", "vale, muchas gracias, eso era todo", "hola, que tal?"]:
    add("smalltalk", q)


# ---------------------------------------------------------------- checks
def norm(s):
    return re.sub(r"\s+", " ", s).strip().lower()


def load(md):
    return norm(open(os.path.join(HERE, "src-text", md), encoding="utf-8").read())


texts = {pdf: load(md) for pdf, md in DOCS.items()}
corpus = " ".join(texts.values())
problems = []
for n, q in enumerate(Q, 1):
    q["id"] = f"shop-es-{n:03d}"
    k = q["kind"]
    if k in ("answerable", "paraphrase", "follow-up"):
        if not q["facts"] or not q["source"]:
            problems.append((q["id"], "missing facts/source"))
        for f in q["facts"]:
            if norm(f) not in texts[q["source"]] and f not in ALLOWED_NON_VERBATIM:
                problems.append((q["id"], f"fact not in {q['source']}: {f!r}"))
        for f in q["facts"]:
            for w in q["wrong_facts"]:
                if norm(f) in norm(w):
                    problems.append((q["id"], f"right fact {f!r} is inside wrong fact {w!r}"))
    else:
        if q["facts"]:
            problems.append((q["id"], "facts must be empty"))
    if k == "near-miss" and not q["covers_instead"]:
        problems.append((q["id"], "near-miss without covers_instead"))
    if k == "follow-up" and len(q["history"]) != 1:
        problems.append((q["id"], "follow-up needs one history turn"))
    for w in q["wrong_facts"]:
        if norm(w) not in corpus:
            problems.append((q["id"], f"wrong fact not in corpus: {w!r}"))

# ---------------------------------------------------------------- split
rng = random.Random(SEED)
by_kind = {}
for q in Q:
    by_kind.setdefault(q["kind"], []).append(q)
for kind in sorted(by_kind):
    items = sorted(by_kind[kind], key=lambda q: q["id"])
    rng.shuffle(items)
    n_dev = round(DEV_SHARE * len(items))
    for i, q in enumerate(items):
        q["split"] = "dev" if i < n_dev else "test"

KEYS = ["id", "split", "kind", "question", "facts", "wrong_facts", "source", "history", "covers_instead"]
with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
    for q in Q:
        fh.write(json.dumps({k: q[k] for k in KEYS}, ensure_ascii=False) + "\n")

counts = {}
for q in Q:
    counts.setdefault(q["kind"], {"dev": 0, "test": 0})[q["split"]] += 1
print("total", len(Q))
for k, v in counts.items():
    print(f"{k:12s} dev={v['dev']:3d} test={v['test']:3d} total={v['dev'] + v['test']}")
for p in problems:
    print("PROBLEM", *p)
sys.exit(1 if problems else 0)

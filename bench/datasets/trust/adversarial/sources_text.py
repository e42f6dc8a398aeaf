# -*- coding: utf-8 -*-
"""Source passages for the adversarial claim-checking set.

Written by hand, blind (no knowledge of the product). Each passage is a
realistic policy / textbook excerpt with several numbers, so that a wrong
number in a reply is plausible (close value, or a value used in the passage
for something else).
"""

SOURCES = {
    # ------------------------------------------------------------------ bank, India
    "B_IN_FD": ("Sahyadri Bank fixed deposit rates",
        "Effective 1 October 2026, Sahyadri Bank offers the following rates on domestic fixed deposits "
        "below ₹2 crore. 7 days to 45 days: 3.50% p.a. 46 days to 179 days: 5.25% p.a. 180 days to less "
        "than 1 year: 6.00% p.a. 1 year to less than 2 years: 7.10% p.a. 2 years to less than 3 years: "
        "7.25% p.a. 3 years to 5 years: 7.00% p.a. Above 5 years up to 10 years: 6.75% p.a. Senior "
        "citizens (aged 60 and above) receive an additional 0.50% p.a. on all tenures. The minimum "
        "deposit is Rs. 1,000. Interest is paid quarterly or reinvested, at the customer's choice."),
    "B_IN_FD_PREM": ("Premature withdrawal of fixed deposits",
        "Sahyadri Bank fixed deposits may be closed before maturity at any branch or through net banking. "
        "For deposits up to ₹5 lakh, a penalty of 0.50% is deducted from the rate applicable to the period "
        "the deposit actually stayed with the bank. For deposits above ₹5 lakh, the penalty is 1.00%. No "
        "interest is paid on deposits closed within 7 days of opening. Tax-saver fixed deposits have a "
        "lock-in of 5 years and cannot be withdrawn early. Proceeds are credited to the linked savings "
        "account within 2 working days."),
    "B_IN_SAV": ("Savings account: interest and minimum balance",
        "Interest on Sahyadri Bank savings balances is calculated on the daily closing balance and "
        "credited quarterly. Balances up to ₹1 lakh earn 2.70% p.a.; the portion above ₹1 lakh earns "
        "3.00% p.a. Metro and urban branches require an average monthly balance (AMB) of Rs. 10,000; "
        "semi-urban branches Rs. 5,000; rural branches Rs. 2,500. If the AMB is not maintained, a charge "
        "of up to Rs. 600 per month plus GST applies in metro branches and Rs. 300 in semi-urban branches. "
        "Basic Savings Bank Deposit accounts have no minimum balance requirement."),
    "B_IN_CARD": ("Sahyadri Rewards credit cards: fees and charges",
        "Classic card: joining fee ₹499, annual fee ₹499, waived if annual spends exceed ₹1,00,000. Gold "
        "card: joining fee ₹1,499, annual fee ₹1,499, waived on annual spends above ₹2,00,000. Platinum "
        "card: joining fee ₹4,999, annual fee ₹4,999, waived on annual spends above ₹5,00,000. Finance "
        "charges on all cards are 3.6% per month (43.2% per annum). Late payment fees range from ₹100 for "
        "balances below ₹500 to ₹1,300 for balances above ₹50,000. Cash withdrawals attract a fee of 2.5% "
        "of the amount, minimum ₹500. Foreign currency transactions carry a markup of 3.5% on Classic and "
        "Gold, and 2% on Platinum."),
    "B_IN_TRANSFER": ("NEFT, RTGS and IMPS transfers",
        "NEFT transfers from Sahyadri Bank accounts are available 24x7, including holidays, and settle in "
        "half-hourly batches. RTGS is available 24x7 for amounts of ₹2 lakh and above; there is no upper "
        "limit. IMPS transfers are instant and available round the clock, with a per-transaction limit of "
        "₹5 lakh. Online NEFT, RTGS and IMPS are free for savings accounts. At the branch, NEFT costs ₹2.50 "
        "for amounts up to ₹10,000 and ₹25 for amounts above ₹2 lakh; RTGS costs ₹24.50 for ₹2-5 lakh and "
        "₹49.50 above ₹5 lakh, plus GST. A new beneficiary can receive a maximum of ₹50,000 in the first "
        "24 hours after being added."),
    "B_IN_LOCKER": ("Safe deposit lockers",
        "Locker rent at Sahyadri Bank is charged annually in advance. Small lockers cost ₹2,000 a year in "
        "rural and semi-urban branches and ₹3,500 in metro and urban branches. Medium lockers cost ₹4,000 "
        "and ₹7,000 respectively; large lockers ₹8,000 and ₹12,000. A term deposit covering 3 years' rent "
        "plus ₹10,000 break-open charges may be required at allotment. Customers may access their locker "
        "up to 12 times a year free of charge; each additional visit costs ₹100. If rent is unpaid for 3 "
        "years, the bank may break open the locker after due notice."),
    "B_IN_DEBIT": ("Debit card limits and ATM charges",
        "The Sahyadri Classic debit card has a daily ATM withdrawal limit of ₹40,000 and a daily purchase "
        "limit of ₹1,00,000. The Platinum debit card allows ₹1,00,000 at ATMs and ₹2,50,000 in purchases "
        "per day. Savings customers get 5 free transactions per month at the bank's own ATMs. At other "
        "banks' ATMs, 3 free transactions are allowed in the six metro cities and 5 elsewhere. Beyond the "
        "free limit, each cash withdrawal costs ₹21 plus GST and each non-financial transaction ₹8.50 plus "
        "GST. The annual fee is ₹200 for Classic and ₹500 for Platinum."),
    "B_IN_HOMELOAN": ("Sahyadri home loans",
        "Home loans are available for up to 30 years or until the borrower turns 70, whichever is earlier. "
        "Interest rates start at 8.40% p.a. for salaried borrowers with a credit score of 800 or above, and "
        "8.75% p.a. for scores between 750 and 799. Self-employed borrowers pay an additional 0.15%. "
        "Loan-to-value is capped at 90% for loans up to ₹30 lakh, 80% for ₹30-75 lakh and 75% above ₹75 "
        "lakh. The processing fee is 0.35% of the loan amount, subject to a minimum of ₹2,000 and a maximum "
        "of ₹10,000. There is no prepayment charge on floating-rate loans taken by individuals."),

    # ------------------------------------------------------------------ bank, Europe (English)
    "B_EU_PACK": ("Nordhaven Bank current account packages",
        "Nordhaven Bank offers three current account packages. Basic costs €4.50 a month and includes one "
        "debit card and free SEPA transfers. Plus costs €8.95 a month and adds a credit card, worldwide "
        "travel insurance for the account holder, and two free cash withdrawals a month outside the "
        "eurozone. Premium costs €14.50 a month and includes a metal credit card, family travel insurance "
        "and unlimited free withdrawals worldwide. Students and customers under 26 get the Plus package free "
        "of charge until their 26th birthday. Package fees are debited on the first working day of each "
        "month. You can switch packages once per calendar month at no cost."),
    "B_EU_OVERDRAFT": ("Arranged overdraft",
        "Nordhaven Bank customers with a regular monthly income of at least €1,200 can apply for an "
        "arranged overdraft of up to three times their net monthly income, to a maximum of €10,000. The "
        "debit interest rate on arranged overdrafts is 9.75% a year. Unarranged overdrafts, where you spend "
        "beyond your limit, cost 13.75% a year. Interest is calculated daily and charged quarterly. We will "
        "notify you by SMS if your account has been overdrawn for more than 30 consecutive days. If the "
        "overdraft has been used continuously for 6 months and represents more than 75% of the limit, we "
        "will offer you a consultation about cheaper alternatives."),
    "B_EU_TRANSFER": ("SEPA transfers and cut-off times",
        "SEPA credit transfers in euro are free in all Nordhaven Bank packages. Orders received by 15:00 on "
        "a business day are executed the same day; orders received after 15:00 are executed the next "
        "business day. SEPA Instant transfers arrive within 10 seconds, 24 hours a day, 365 days a year, up "
        "to €100,000 per transaction, and cost €0.50 each in the Basic package and nothing in Plus and "
        "Premium. Non-euro transfers outside the SEPA area cost 0.15% of the amount, minimum €12.50, maximum "
        "€75, plus correspondent bank charges. Standing orders can be set up, changed or deleted until 20:00 "
        "the day before execution."),
    "B_EU_DEPOSIT": ("Nordhaven fixed-term deposits",
        "Fixed-term deposits are available from €5,000 up to €500,000. Rates for deposits opened from 15 "
        "January 2026: 3 months 2.10%, 6 months 2.40%, 12 months 2.75%, 24 months 2.60%, 36 months 2.50% "
        "per year. Interest is paid at maturity for terms up to 12 months and annually for longer terms. "
        "The deposit cannot be terminated early. Deposits are protected by the statutory deposit guarantee "
        "scheme up to €100,000 per customer. If you do not give instructions, the amount and interest are "
        "paid into your reference account on the maturity date."),
    "B_EU_CARDS": ("Using your Nordhaven cards abroad",
        "Payments in euro with your debit card are free throughout the eurozone. For card payments in other "
        "currencies, a foreign currency fee of 1.75% of the amount applies on Basic accounts; Plus and "
        "Premium pay 0%. Cash withdrawals in euro at other banks' ATMs cost €2.00 from the fourth withdrawal "
        "in a month. Outside the eurozone, Basic customers pay 1.75% plus €3.50 per withdrawal. The daily "
        "withdrawal limit is €1,000 and the daily payment limit €5,000; both can be changed in the app, up "
        "to €2,500 and €25,000 respectively. A lost or stolen card can be blocked 24/7 on +31 20 555 0100."),

    # ------------------------------------------------------------------ bank, Spain (Spanish)
    "ES_BANK_DEP": ("Depósito Meridiano a plazo fijo",
        "El Depósito Meridiano de Banco Meridiano está disponible desde 1.000 € hasta 250.000 €. La "
        "rentabilidad es del 2,25 % TAE a 6 meses, del 2,60 % TAE a 12 meses y del 2,40 % TAE a 24 meses. "
        "Los intereses se abonan al vencimiento en los plazos de 6 y 12 meses, y anualmente en el de 24 "
        "meses. Se permite la cancelación anticipada total con una penalización del 1 % sobre el capital "
        "cancelado, que nunca superará los intereses devengados. Oferta válida para contrataciones hasta el "
        "30 de junio de 2026. Los fondos están cubiertos por el Fondo de Garantía de Depósitos hasta "
        "100.000 € por titular."),
    "ES_BANK_CUENTA": ("Cuenta Nómina: comisiones",
        "La Cuenta Nómina de Banco Meridiano no tiene comisión de mantenimiento si se domicilia una nómina "
        "igual o superior a 1.200 € al mes. En caso contrario, la comisión es de 8 € al mes. La tarjeta de "
        "débito es gratuita el primer año; a partir del segundo, cuesta 35 € anuales, salvo que se realicen "
        "al menos 3 compras al mes. Las transferencias SEPA en línea son gratuitas; en oficina cuestan el "
        "0,40 % del importe, con un mínimo de 3 € y un máximo de 60 €. Las retiradas en cajeros de otras "
        "entidades cuestan 2 € a partir de la quinta operación mensual."),
    "ES_BANK_PREST": ("Préstamo Personal Meridiano",
        "El Préstamo Personal Meridiano permite financiar de 3.000 € a 60.000 € con un plazo de 12 a 96 "
        "meses. El tipo de interés nominal (TIN) es del 6,95 % y la TAE del 7,42 % para un préstamo de "
        "15.000 € a 5 años con nómina domiciliada. Sin nómina domiciliada, el TIN sube al 8,45 %. La "
        "comisión de apertura es del 1,5 %, con un mínimo de 60 €. La amortización anticipada parcial o "
        "total tiene una comisión del 1 % si quedan más de 12 meses y del 0,5 % en otro caso."),
    "ES_BANK_HIPOTECA": ("Hipoteca Fija Meridiano",
        "La Hipoteca Fija Meridiano ofrece un tipo fijo del 2,95 % TIN durante toda la vida del préstamo, "
        "con un plazo máximo de 30 años. Financiamos hasta el 80 % del valor de tasación para vivienda "
        "habitual y hasta el 70 % para segunda residencia. Para obtener el tipo bonificado es necesario "
        "domiciliar la nómina y contratar el seguro de hogar; sin estas vinculaciones el tipo es del "
        "3,65 %. La edad del titular más el plazo no puede superar los 75 años. No hay comisión de "
        "apertura."),

    # ------------------------------------------------------------------ shop (English)
    "SHOP_RET": ("Brightcart returns and refunds",
        "You can return most Brightcart items within 30 days of delivery for a full refund. Electronics must "
        "be returned within 14 days and unopened software, games and music within 30 days. Items must be "
        "unused and in their original packaging. Returns by post are free for orders over £40; otherwise a "
        "£3.95 return fee is deducted from your refund. Once we receive your return, refunds are processed "
        "within 5 working days and reach your card within 3 to 10 days, depending on your bank. "
        "Personalised items, perishable goods and earrings cannot be returned unless faulty."),
    "SHOP_DEL": ("Brightcart delivery options",
        "Standard delivery costs £3.99 and arrives in 3-5 working days. It is free on orders of £40 or more. "
        "Next-day delivery costs £5.99 if you order by 16:00 Monday to Friday. Nominated-day delivery costs "
        "£6.99 and can be booked up to 14 days ahead. Saturday delivery is available for £7.99 on orders "
        "placed by 16:00 on Friday. Click & Collect is free and orders are ready from 2 pm the next day at "
        "over 400 Brightcart stores; they are held for 7 days. We do not currently deliver to the Channel "
        "Islands or to BFPO addresses."),
    "SHOP_WARR": ("Warranty and ExtraCare",
        "All electrical products sold by Brightcart come with a 1-year manufacturer's guarantee. ExtraCare "
        "extends cover to 3 years in total and includes accidental damage. ExtraCare costs £29 for products "
        "priced up to £200, £59 for products from £200.01 to £600 and £99 for products above £600. You can "
        "buy ExtraCare at checkout or within 30 days of purchase. Repairs are normally completed within 10 "
        "working days; if we cannot repair your product, we will replace it with one of equal or similar "
        "specification. You can cancel ExtraCare within 45 days for a full refund."),
    "SHOP_LOYAL": ("Brightcart Rewards",
        "Members earn 1 point for every £1 spent online and 2 points per £1 in store on Tuesdays. Every 500 "
        "points can be turned into a £5 voucher. Gold members, who spend at least £1,000 in a calendar year, "
        "earn 1.5 points per £1 online and get free next-day delivery. Points expire 24 months after they "
        "were earned. Vouchers are valid for 3 months and cannot be used on gift cards. Points are added to "
        "your account 28 days after delivery, once the return period has passed."),
    "SHOP_GIFT": ("Brightcart gift cards",
        "Brightcart gift cards are available from £10 to £500 and are valid for 24 months from the date of "
        "purchase or last use. E-gift cards are delivered by email within 2 hours; physical cards are sent "
        "by first-class post free of charge. Up to 5 gift cards can be used on one order. Lost gift cards "
        "can be replaced if you have the receipt, for a fee of £2.50. Balances can be checked online or at "
        "any till. Gift cards cannot be exchanged for cash."),
    "SHOP_PRICE": ("Brightcart price promise",
        "If you find the same item cheaper at a UK retailer within 7 days of buying it from Brightcart, we "
        "will refund the difference. The item must be in stock at the competitor, new, and for sale with the "
        "same delivery terms. The price promise does not cover marketplace sellers, clearance or outlet "
        "stores, or prices that need a membership or voucher code. Claims must be made through our contact "
        "form with a link to the competitor's price, and we refund the difference within 5 working days. "
        "There is a limit of 3 claims per customer per month."),
    "SHOP_CANCEL": ("Cancelling a Brightcart order",
        "You can cancel an order free of charge until it has been dispatched, usually within 60 minutes of "
        "placing it for next-day orders. Under the Consumer Contracts Regulations you also have 14 days from "
        "delivery to cancel most online orders, even after dispatch. Refunds for cancelled orders are made "
        "to the original payment method within 14 days. Large items delivered by our two-person team must "
        "be collected; a £25 collection charge applies unless the item is faulty. Made-to-measure furniture "
        "cannot be cancelled after 48 hours."),

    # ------------------------------------------------------------------ shop (Spanish)
    "ES_SHOP_DEV": ("Devoluciones en TiendaSol",
        "En TiendaSol dispones de 30 días naturales desde la recepción del pedido para devolver cualquier "
        "artículo. Para los artículos de electrónica el plazo es de 15 días y el producto debe estar "
        "precintado. La devolución en tienda es gratuita; si la haces por mensajería, te descontaremos "
        "3,95 € del reembolso, salvo que el pedido supere los 50 €. El reembolso se realizará en un plazo "
        "máximo de 14 días desde que recibamos el artículo, mediante el mismo método de pago. Los productos "
        "de higiene personal, la ropa interior y los artículos personalizados no admiten devolución."),
    "ES_SHOP_ENV": ("Envíos de TiendaSol",
        "El envío estándar de TiendaSol cuesta 4,95 € y tarda de 2 a 4 días laborables; es gratuito para "
        "pedidos superiores a 49 €. El envío exprés cuesta 7,95 € y se entrega en 24 horas si realizas el "
        "pedido antes de las 14:00, de lunes a viernes. La recogida en tienda es gratuita y el pedido estará "
        "disponible en 48 horas. Los envíos a Baleares tienen un suplemento de 6 € y tardan de 4 a 6 días "
        "laborables. No realizamos envíos a Canarias, Ceuta ni Melilla."),
    "ES_SHOP_GAR": ("Garantía de los productos TiendaSol",
        "Todos los productos nuevos vendidos por TiendaSol tienen una garantía legal de 3 años desde la "
        "entrega, y los productos reacondicionados, de 18 meses. Si detectas un defecto, comunícalo a través "
        "de tu área de cliente. Las reparaciones en garantía se realizan en un plazo máximo de 30 días. Si "
        "la reparación no es posible, te ofreceremos la sustitución del producto o la devolución de su "
        "importe. Las baterías de portátiles y móviles tienen una garantía de 12 meses cuando su capacidad "
        "baje del 80 %. La garantía no cubre daños por caídas, golpes o líquidos."),

    # ------------------------------------------------------------------ textbook, robotics (English)
    "TX_PID": ("PID control",
        "A PID controller computes its output as u(t) = Kp·e(t) + Ki∫e(t)dt + Kd·de/dt, where e is the error "
        "between setpoint and measurement. Increasing the proportional gain Kp reduces rise time but "
        "increases overshoot. The integral term removes steady-state error but can cause integrator windup "
        "when the actuator saturates; a common fix is to clamp the integral to the actuator limits. The "
        "derivative term adds damping but amplifies sensor noise, so it is usually low-pass filtered with a "
        "cutoff about 10 times the closed-loop bandwidth. In the Ziegler-Nichols ultimate-gain method, Kp "
        "is set to 0.6 Ku, Ti to 0.5 Tu and Td to 0.125 Tu, where Ku is the ultimate gain and Tu the "
        "oscillation period. Joint controllers in industrial arms typically run at 1 kHz."),
    "TX_SENS": ("Range sensors",
        "Ultrasonic sensors such as the HC-SR04 measure the time of flight of a 40 kHz pulse; their usable "
        "range is about 2 cm to 400 cm with a beam angle of roughly 15 degrees. Infrared triangulation "
        "sensors like the Sharp GP2Y0A21 cover 10 cm to 80 cm and have a non-linear output. A 2D lidar such "
        "as the RPLIDAR A1 scans 360 degrees at 5.5 Hz with a range of 0.15 m to 12 m and an angular "
        "resolution of about 1 degree. Time-of-flight cameras provide depth images at up to 30 frames per "
        "second but are disturbed by strong sunlight."),
    "TX_SERVO": ("Hobby servos and DC motors",
        "A standard hobby servo expects a pulse every 20 ms (50 Hz). A pulse width of 1.5 ms centres the "
        "output shaft; 1.0 ms and 2.0 ms drive it to the ends of its range, typically ±90 degrees. Many "
        "servos stall at around 1.2 A at 6 V, so they should not be powered from a microcontroller's 5 V "
        "pin. Brushed DC motors are usually driven by an H-bridge with pulse-width modulation at 20 kHz, "
        "above the audible range. A gearbox with a ratio of 50:1 multiplies the output torque by about 50, "
        "minus friction losses, and divides the speed by 50."),
    "TX_KIN": ("Differential-drive kinematics",
        "A differential-drive robot has two independently driven wheels on a common axis. With wheel radius "
        "r, track width L, and wheel angular speeds ωR and ωL, the forward speed is v = r(ωR + ωL)/2 and the "
        "turning rate is ω = r(ωR − ωL)/L. For example, a robot with r = 0.05 m and L = 0.30 m whose wheels "
        "both turn at 10 rad/s moves straight ahead at 0.5 m/s. If the right wheel turns at 10 rad/s and the "
        "left at 4 rad/s, the robot moves at 0.35 m/s and turns at 1 rad/s. Differential drive is "
        "non-holonomic: the robot cannot move sideways directly."),
    "TX_ENC": ("Wheel encoders and odometry",
        "An incremental quadrature encoder with 500 lines per revolution produces 2,000 counts per "
        "revolution when both edges of both channels are counted (4× decoding). If it is mounted on a motor "
        "with a 30:1 gearbox, one wheel revolution corresponds to 60,000 counts. For a wheel of 0.1 m "
        "diameter, each count then represents about 5.2 micrometres of travel. Odometry accumulates error "
        "over time: wheel slip, uneven floors and errors in the measured wheel diameter cause the position "
        "estimate to drift, typically by 1-5% of the distance travelled, so odometry is usually fused with "
        "an IMU or external landmarks."),
    "TX_DH": ("Denavit-Hartenberg convention",
        "The Denavit-Hartenberg (DH) convention describes each link of a serial manipulator with four "
        "parameters: the link length a, the link twist α, the link offset d and the joint angle θ. For a "
        "revolute joint, θ is the variable; for a prismatic joint, d is the variable. The homogeneous "
        "transform between consecutive frames is a 4×4 matrix. A six-axis arm therefore has 24 DH "
        "parameters, 6 of which are joint variables. The PUMA 560, a classic example, has six revolute "
        "joints; the last three axes intersect at a single point, forming a spherical wrist, which allows "
        "the inverse kinematics to be solved in closed form."),
    "TX_IMU": ("Inertial measurement units",
        "An IMU combines a 3-axis accelerometer and a 3-axis gyroscope; a 9-axis unit adds a 3-axis "
        "magnetometer. The MPU-6050 offers selectable accelerometer ranges of ±2, ±4, ±8 and ±16 g and "
        "gyroscope ranges of ±250, ±500, ±1000 and ±2000 degrees per second. Integrating gyroscope rates "
        "gives orientation, but bias causes drift; a bias of only 0.1 deg/s produces 6 degrees of error "
        "after one minute. A complementary filter mixes gyroscope and accelerometer estimates, typically "
        "weighting the gyroscope by 0.98 and the accelerometer by 0.02 at a 100 Hz update rate."),
    "TX_PATH": ("Grid-based path planning",
        "Dijkstra's algorithm finds the shortest path on a graph with non-negative edge costs by expanding "
        "nodes in order of their cost from the start. A* adds a heuristic h(n), an estimate of the remaining "
        "cost, and expands nodes in order of f(n) = g(n) + h(n). If h never overestimates the true cost, A* "
        "is guaranteed to find an optimal path. On a 4-connected grid the Manhattan distance is admissible; "
        "on an 8-connected grid with diagonal cost √2, the octile distance is used. Weighted A* multiplies h "
        "by a factor such as 1.5, trading optimality for speed: the path cost is at most 1.5 times the "
        "optimum."),
    "TX_BATT": ("Batteries for mobile robots",
        "Lithium-ion polymer (LiPo) cells have a nominal voltage of 3.7 V, are fully charged at 4.2 V and "
        "should not be discharged below 3.0 V. A 4S pack therefore has a nominal voltage of 14.8 V. "
        "Capacity is given in milliampere-hours: a 5,000 mAh pack can in theory deliver 5 A for one hour. "
        "The C-rating gives the maximum continuous discharge current as a multiple of capacity, so a 5,000 "
        "mAh pack rated 20C can supply 100 A. LiPo packs should be charged at 1C unless the manufacturer "
        "allows more and stored at about 3.8 V per cell."),
    "TX_ACT": ("Actuators for small robots",
        "Educational robots commonly use three families of actuators. The SG90 micro servo weighs 9 g and "
        "delivers a stall torque of 1.8 kg·cm at 4.8 V, with a speed of 0.1 s per 60 degrees. The larger "
        "MG996R weighs 55 g and delivers 9.4 kg·cm at 4.8 V and 11 kg·cm at 6 V. Smart servos such as the "
        "Dynamixel XL430-W250 weigh 57.2 g, stall at 1.4 N·m at 11.1 V and report position with a 12-bit "
        "absolute encoder, i.e. 4,096 positions per revolution. Stepper motors of NEMA 17 size typically "
        "hold 0.4 to 0.5 N·m and move 1.8 degrees per full step."),

    # ------------------------------------------------------------------ textbook, robotics (Spanish)
    "ES_TX_SENS": ("Sensores de distancia",
        "El sensor ultrasónico HC-SR04 emite un pulso de 40 kHz y mide el tiempo que tarda el eco en volver. "
        "Su alcance útil va de 2 cm a 4 m, con un ángulo de apertura de unos 15 grados. Como el sonido "
        "recorre unos 343 m/s en aire a 20 °C, un eco que tarda 5,8 ms corresponde a un objeto situado a "
        "aproximadamente 1 m. Los sensores infrarrojos de triangulación, como el Sharp GP2Y0A21, miden de 10 "
        "a 80 cm. Los lídar 2D de bajo coste giran a unos 5,5 Hz y alcanzan 12 m."),
    "ES_TX_PID": ("Control PID",
        "Un controlador PID combina tres acciones: proporcional, integral y derivativa. La acción "
        "proporcional reduce el tiempo de subida pero, con ganancias altas, aumenta la sobreoscilación. La "
        "acción integral elimina el error en régimen permanente. La acción derivativa amortigua la "
        "respuesta, aunque amplifica el ruido. Según el método de Ziegler-Nichols en lazo cerrado, "
        "Kp = 0,6 Ku, Ti = 0,5 Tu y Td = 0,125 Tu. En brazos industriales, el lazo de control de cada "
        "articulación suele ejecutarse a 1 kHz, es decir, cada milisegundo, mientras que el planificador de "
        "trayectorias funciona a 100 Hz."),
    "ES_TX_MOT": ("Motores y servomotores",
        "Un servomotor de modelismo recibe un pulso cada 20 ms, es decir, a 50 Hz. Un pulso de 1,5 ms sitúa "
        "el eje en la posición central, mientras que los pulsos de 1 ms y 2 ms lo llevan a los extremos, "
        "normalmente ±90 grados. Los motores paso a paso más comunes tienen 200 pasos por vuelta, es decir, "
        "1,8 grados por paso; con micropasos de 1/16 se obtienen 3.200 micropasos por vuelta. Un motor de "
        "corriente continua con reductora 30:1 gira 30 veces más despacio en el eje de salida."),
    "ES_TX_BAT": ("Baterías LiPo",
        "Las celdas LiPo tienen una tensión nominal de 3,7 V, se cargan hasta 4,2 V y no deben descargarse "
        "por debajo de 3,0 V. Una batería 3S tiene, por tanto, 11,1 V nominales y 12,6 V a plena carga. La "
        "capacidad se expresa en miliamperios-hora. Una batería de 2.200 mAh con una tasa de descarga de 25C "
        "puede entregar hasta 55 A de forma continua. Se recomienda cargarlas a 1C, no dejarlas nunca "
        "cargando sin vigilancia y almacenarlas a unos 3,8 V por celda."),
}

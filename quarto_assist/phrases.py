"""Everything the assistant says, in English, Russian, Hungarian and Latvian.

``Phrases(lang)`` turns the referee's and tracker's findings into sentences; places on
the board come as descriptor keys from :mod:`quarto_assist.tablewords` ("the row nearest
the camera"), pieces as 4-bit ints, shared values as engine value masks. The same
sentence is spoken and shown.
"""

from __future__ import annotations

from engine.pieces import DARK, HOLLOW, SQUARE, TALL, describe_values

LANGUAGES = ("en", "ru", "hu", "lv")

#: engine value word -> words per language (plural form used after "all")
_VALUES = {
    "en": {"tall": "tall", "short": "short", "dark": "dark", "light": "light",
           "square": "square", "round": "round", "hollow": "hollow", "solid": "solid"},
    "ru": {"tall": "высокие", "short": "низкие", "dark": "тёмные", "light": "светлые",
           "square": "квадратные", "round": "круглые", "hollow": "полые", "solid": "сплошные"},
    "hu": {"tall": "magas", "short": "alacsony", "dark": "sötét", "light": "világos",
           "square": "szögletes", "round": "kerek", "hollow": "lyukas", "solid": "tömör"},
    "lv": {"tall": "augstas", "short": "zemas", "dark": "tumšas", "light": "gaišas",
           "square": "kvadrātveida", "round": "apaļas", "hollow": "dobas", "solid": "pilnas"},
}

#: a piece's words per language and grammatical case: attribute bit -> (set word, clear word)
_PIECE = {
    "en": {"nom": ({TALL: ("tall", "short"), DARK: ("dark", "light"), SQUARE: ("square", "round"),
                    HOLLOW: ("hollow", "solid")}, "the {} piece")},
    "ru": {"nom": ({TALL: ("высокая", "низкая"), DARK: ("тёмная", "светлая"), SQUARE: ("квадратная", "круглая"),
                    HOLLOW: ("полая", "сплошная")}, "{} фигура"),
           "acc": ({TALL: ("высокую", "низкую"), DARK: ("тёмную", "светлую"), SQUARE: ("квадратную", "круглую"),
                    HOLLOW: ("полую", "сплошную")}, "{} фигуру")},
    "hu": {"nom": ({TALL: ("magas", "alacsony"), DARK: ("sötét", "világos"), SQUARE: ("szögletes", "kerek"),
                    HOLLOW: ("lyukas", "tömör")}, "{} bábu"),
           "acc": ({TALL: ("magas", "alacsony"), DARK: ("sötét", "világos"), SQUARE: ("szögletes", "kerek"),
                    HOLLOW: ("lyukas", "tömör")}, "{} bábut")},
    "lv": {"nom": ({TALL: ("augsta", "zema"), DARK: ("tumša", "gaiša"), SQUARE: ("kvadrātveida", "apaļa"),
                    HOLLOW: ("doba", "pilna")}, "{} figūra"),
           "acc": ({TALL: ("augstu", "zemu"), DARK: ("tumšu", "gaišu"), SQUARE: ("kvadrātveida", "apaļu"),
                    HOLLOW: ("dobu", "pilnu")}, "{} figūru")},
}

_TEXT = {
    "en": {
        "and": " and ", "list_sep": ", ",
        "row": ["the row nearest the camera", "the second row from the camera", "the third row from the camera",
                "the row farthest from the camera"],
        "col": ["the column on the left", "the second column from the left", "the second column from the right",
                "the column on the right"],
        "slant_nr": ["the line along the near right edge", "the second line from the near right edge",
                     "the second line from the far left edge", "the line along the far left edge"],
        "slant_nl": ["the line along the near left edge", "the second line from the near left edge",
                     "the second line from the far right edge", "the line along the far right edge"],
        "diag": {"across": "the diagonal running across", "depth": "the diagonal running away from the camera",
                 "nl_fr": "the diagonal from the near left corner to the far right corner",
                 "nr_fl": "the diagonal from the near right corner to the far left corner"},
        "block": "the {} square of four",
        "block_pos": {"near-left": "near left", "near": "near middle", "near-right": "near right", "left": "middle left",
                      "centre": "centre", "right": "middle right", "far-left": "far left", "far": "far middle",
                      "far-right": "far right"},
        "cell": "where {a} meets {b}",
        "quarto": "Quarto! {group}: all {values}.",
        "unsure": "{group} may be a Quarto (all {values}), but the camera is not sure of every piece: check it.",
        "claim_ok": "Quarto claimed! {group}: all {values}. The game is won.",
        "claim_false": "No Quarto: no line of four shares a value.",
        "line_lost": "Play went on: that Quarto no longer counts.",
        "draw": "The board is full: it is a draw.",
        "disappeared": "{piece} has gone from the board. Please put it back.",
        "moved": "{piece} has moved. Please put it back where it was.",
        "two_new": "Two new pieces at once. One piece per turn, please.",
        "duplicate": "The new piece reads as {piece}, which is already on the board. Please check it.",
        "changed": "A piece on the board now reads differently: {old} became {new}. Please check it.",
        "cleared": "The board is in order again.",
        "unmatched": "The board has moved and I cannot tell which way round it now stands. Please put it back as it was.",
        "camera_lost": "The camera is lost. Trying again.",
        "camera_back": "The camera is back.",
        "placed": "Placed: {piece} ({symbol}).",
        "status_hand": "hand over the board",
        "status_noboard": "no board in view",
        "new_game": "The board is clear: a new game.",
        "coach_give": "Hand over {piece}.",
        "coach_win": "With perfect play you win.", "coach_draw": "With perfect play it is a draw.",
        "coach_loss": "With perfect play you lose.",
        "coach_poison": "Do not hand over {pieces}: your opponent would win at once.",
        "coach_all_poison": "Every piece left lets your opponent win.",
        "coach_place": "Place {piece} {cell}.",
        "coach_call": "That makes a Quarto: then call it!",
    },
    "ru": {
        "and": " и ", "list_sep": ", ",
        "row": ["ближний к камере ряд", "второй ряд от камеры", "третий ряд от камеры", "дальний ряд"],
        "col": ["левый столбец", "второй столбец слева", "второй столбец справа", "правый столбец"],
        "slant_nr": ["линия у ближнего правого края", "вторая линия от ближнего правого края",
                     "вторая линия от дальнего левого края", "линия у дальнего левого края"],
        "slant_nl": ["линия у ближнего левого края", "вторая линия от ближнего левого края",
                     "вторая линия от дальнего правого края", "линия у дальнего правого края"],
        "diag": {"across": "поперечная диагональ", "depth": "диагональ, идущая от камеры вдаль",
                 "nl_fr": "диагональ от ближнего левого угла к дальнему правому",
                 "nr_fl": "диагональ от ближнего правого угла к дальнему левому"},
        "block": "{} квадрат из четырёх",
        "block_pos": {"near-left": "ближний левый", "near": "ближний средний", "near-right": "ближний правый",
                      "left": "средний левый", "centre": "центральный", "right": "средний правый",
                      "far-left": "дальний левый", "far": "дальний средний", "far-right": "дальний правый"},
        "cell": "на пересечение: {a} и {b}",
        "quarto": "Кварто! {group}: все {values}.",
        "unsure": "{group}: возможно, кварто (все {values}), но камера не уверена во всех фигурах: проверьте.",
        "claim_ok": "Кварто заявлено! {group}: все {values}. Победа.",
        "claim_false": "Кварто нет: ни у одной линии из четырёх нет общего признака.",
        "line_lost": "Игра продолжилась: это кварто больше не считается.",
        "draw": "Доска заполнена: ничья.",
        "disappeared": "{piece} пропала с доски. Верните её на место.",
        "moved": "{piece} сдвинута. Верните её на место.",
        "two_new": "Две новые фигуры сразу. Ставьте по одной за ход.",
        "duplicate": "Новая фигура читается как {piece}, но такая уже стоит на доске. Проверьте.",
        "changed": "Фигура на доске теперь читается иначе: была {old}, стала {new}. Проверьте.",
        "cleared": "На доске снова порядок.",
        "unmatched": "Доска сдвинулась, и я не могу понять, как она теперь повёрнута. Пожалуйста, поставьте её как было.",
        "camera_lost": "Камера потеряна. Пробую снова.",
        "camera_back": "Камера снова работает.",
        "placed": "Поставлена {piece} ({symbol}).",
        "status_hand": "рука над доской",
        "status_noboard": "доска не видна",
        "new_game": "Доска пуста: новая партия.",
        "coach_give": "Отдайте {piece}.",
        "coach_win": "При точной игре вы выигрываете.", "coach_draw": "При точной игре будет ничья.",
        "coach_loss": "При точной игре вы проигрываете.",
        "coach_poison": "Не отдавайте {pieces}: соперник сразу выиграет.",
        "coach_all_poison": "Любая оставшаяся фигура даёт сопернику победу.",
        "coach_place": "Поставьте {piece} {cell}.",
        "coach_call": "Это кварто: объявите его!",
    },
    "hu": {
        "and": " és ", "list_sep": ", ",
        "row": ["a kamerához legközelebbi sor", "a kamerától a második sor", "a kamerától a harmadik sor",
                "a legtávolabbi sor"],
        "col": ["a bal szélső oszlop", "balról a második oszlop", "jobbról a második oszlop", "a jobb szélső oszlop"],
        "slant_nr": ["a közeli jobb szél menti vonal", "a közeli jobb széltől a második vonal",
                     "a távoli bal széltől a második vonal", "a távoli bal szél menti vonal"],
        "slant_nl": ["a közeli bal szél menti vonal", "a közeli bal széltől a második vonal",
                     "a távoli jobb széltől a második vonal", "a távoli jobb szél menti vonal"],
        "diag": {"across": "a keresztben futó átló", "depth": "a kamerától távolodó átló",
                 "nl_fr": "az átló a közeli bal saroktól a távoli jobb sarokig",
                 "nr_fl": "az átló a közeli jobb saroktól a távoli bal sarokig"},
        "block": "a {} négyes négyzet",
        "block_pos": {"near-left": "közeli bal", "near": "közeli középső", "near-right": "közeli jobb",
                      "left": "középső bal", "centre": "középső", "right": "középső jobb",
                      "far-left": "távoli bal", "far": "távoli középső", "far-right": "távoli jobb"},
        "cell": "oda, ahol {a} és {b} találkozik",
        "quarto": "Quarto! {group}: mind a négy {values}.",
        "unsure": "{group}: lehet, hogy Quarto (mind a négy {values}), de a kamera nem biztos minden bábuban: nézzétek meg.",
        "claim_ok": "Quarto bejelentve! {group}: mind a négy {values}. Győzelem.",
        "claim_false": "Nincs quarto: egyik négyes vonalnak sincs közös tulajdonsága.",
        "line_lost": "A játék folytatódott: ez a quarto már nem számít.",
        "draw": "A tábla megtelt: döntetlen.",
        "disappeared": "{piece} eltűnt a tábláról. Tegyétek vissza.",
        "moved": "{piece} elmozdult. Tegyétek vissza a helyére.",
        "two_new": "Egyszerre két új bábu. Egy körben csak egyet tegyetek le.",
        "duplicate": "Az új bábu így látszik: {piece}, de ilyen már van a táblán. Ellenőrizzétek.",
        "changed": "Egy bábu most másnak látszik: {old} helyett {new}. Ellenőrizzétek.",
        "cleared": "A tábla újra rendben van.",
        "unmatched": "A tábla elmozdult, és nem tudom, most merre áll. Kérem, tegye vissza, ahogy volt.",
        "camera_lost": "A kamera elveszett. Újra próbálom.",
        "camera_back": "A kamera újra működik.",
        "placed": "Letéve: {piece} ({symbol}).",
        "status_hand": "kéz a tábla fölött",
        "status_noboard": "nem látszik tábla",
        "new_game": "A tábla üres: új játék.",
        "coach_give": "Add át {piece}.",
        "coach_win": "Tökéletes játékkal nyersz.", "coach_draw": "Tökéletes játékkal döntetlen lesz.",
        "coach_loss": "Tökéletes játékkal veszítesz.",
        "coach_poison": "Ne add át ezeket: {pieces}; az ellenfél azonnal nyerne.",
        "coach_all_poison": "Bármelyik maradék bábuval nyer az ellenfél.",
        "coach_place": "Tedd {piece} {cell}.",
        "coach_call": "Ez quarto: aztán jelentsd be!",
    },
    "lv": {
        "and": " un ", "list_sep": ", ",
        "row": ["kamerai tuvākā rinda", "otrā rinda no kameras", "trešā rinda no kameras", "tālākā rinda"],
        "col": ["kreisā kolonna", "otrā kolonna no kreisās", "otrā kolonna no labās", "labā kolonna"],
        "slant_nr": ["līnija pie tuvās labās malas", "otrā līnija no tuvās labās malas",
                     "otrā līnija no tālās kreisās malas", "līnija pie tālās kreisās malas"],
        "slant_nl": ["līnija pie tuvās kreisās malas", "otrā līnija no tuvās kreisās malas",
                     "otrā līnija no tālās labās malas", "līnija pie tālās labās malas"],
        "diag": {"across": "šķērsām ejošā diagonāle", "depth": "diagonāle prom no kameras",
                 "nl_fr": "diagonāle no tuvā kreisā stūra uz tālo labo",
                 "nr_fl": "diagonāle no tuvā labā stūra uz tālo kreiso"},
        "block": "{} četru kvadrāts",
        "block_pos": {"near-left": "tuvais kreisais", "near": "tuvais vidējais", "near-right": "tuvais labais",
                      "left": "vidējais kreisais", "centre": "centrālais", "right": "vidējais labais",
                      "far-left": "tālais kreisais", "far": "tālais vidējais", "far-right": "tālais labais"},
        "cell": "tur, kur krustojas {a} un {b}",
        "quarto": "Kvarto! {group}: visas {values}.",
        "unsure": "{group}: iespējams, kvarto (visas {values}), bet kamera nav droša par katru figūru: pārbaudiet.",
        "claim_ok": "Kvarto pieteikts! {group}: visas {values}. Uzvara.",
        "claim_false": "Kvarto nav: nevienai četru līnijai nav kopīgas īpašības.",
        "line_lost": "Spēle turpinājās: šis kvarto vairs neskaitās.",
        "draw": "Laukums ir pilns: neizšķirts.",
        "disappeared": "{piece} pazuda no laukuma. Lūdzu, nolieciet to atpakaļ.",
        "moved": "{piece} ir pārvietota. Lūdzu, nolieciet to atpakaļ.",
        "two_new": "Divas jaunas figūras uzreiz. Vienā gājienā tikai vienu.",
        "duplicate": "Jaunā figūra izskatās kā {piece}, bet tāda jau ir uz laukuma. Lūdzu, pārbaudiet.",
        "changed": "Figūra uz laukuma tagad izskatās citādi: bija {old}, tagad {new}. Lūdzu, pārbaudiet.",
        "cleared": "Laukumā atkal viss kārtībā.",
        "unmatched": "Laukums ir pārvietots, un es nevaru noteikt, kā tas tagad pagriezts. Lūdzu, novietojiet to atpakaļ kā bija.",
        "camera_lost": "Kamera pazuda. Mēģinu vēlreiz.",
        "camera_back": "Kamera atkal darbojas.",
        "placed": "Novietota {piece} ({symbol}).",
        "status_hand": "roka virs laukuma",
        "status_noboard": "laukums nav redzams",
        "new_game": "Laukums ir tukšs: jauna spēle.",
        "coach_give": "Iedodiet {piece}.",
        "coach_win": "Ar perfektu spēli jūs uzvarat.", "coach_draw": "Ar perfektu spēli būs neizšķirts.",
        "coach_loss": "Ar perfektu spēli jūs zaudējat.",
        "coach_poison": "Nedodiet {pieces}: pretinieks uzreiz uzvarētu.",
        "coach_all_poison": "Ar jebkuru atlikušo figūru pretinieks uzvar.",
        "coach_place": "Nolieciet {piece} {cell}.",
        "coach_call": "Tas ir kvarto: pēc tam piesakiet to!",
    },
}

_HU_VOWELS = "aáeéiíoóöőuúüű"


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]


class Phrases:
    """Sentences in one language. ``lang`` is one of :data:`LANGUAGES`."""

    def __init__(self, lang: str = "en"):
        if lang not in LANGUAGES:
            raise ValueError(f"invalid language: {lang!r} (expected one of {', '.join(LANGUAGES)})")
        self.lang = lang
        self.t = _TEXT[lang]

    # --- pieces, values, places -------------------------------------------------
    def piece(self, piece: int, case: str = "nom") -> str:
        forms = _PIECE[self.lang]
        words, frame = forms.get(case, forms["nom"])
        text = frame.format(" ".join(words[b][0 if piece & b else 1] for b in (TALL, DARK, SQUARE, HOLLOW)))
        if self.lang == "hu":  # the definite article before the words
            text = ("az " if text[0] in _HU_VOWELS else "a ") + text
        return text

    def pieces(self, pieces: list[int], case: str = "nom") -> str:
        return self._join([self.piece(p, case) for p in pieces])

    def values(self, value_mask: int) -> str:
        return self._join([_VALUES[self.lang][w] for w in describe_values(value_mask)])

    def _join(self, words: list[str]) -> str:
        if len(words) <= 1:
            return "".join(words)
        return self.t["list_sep"].join(words[:-1]) + self.t["and"] + words[-1]

    def place(self, key) -> str:
        """A descriptor key from :mod:`quarto_assist.tablewords` as words."""
        kind, which = key
        if kind in ("row", "col", "slant_nr", "slant_nl"):
            return self.t[kind][which]
        if kind == "diag":
            return self.t["diag"][which]
        if kind == "block":
            return self.t["block"].format(self.t["block_pos"][which])
        raise ValueError(f"unknown place key: {key!r}")

    def cell(self, keys) -> str:
        a, b = keys
        return self.t["cell"].format(a=self.place(a), b=self.place(b))

    # --- sentences --------------------------------------------------------------
    def quarto(self, group_key, value_mask: int) -> str:
        return self.t["quarto"].format(group=_capital(self.place(group_key)), values=self.values(value_mask))

    def unsure(self, group_key, value_mask: int) -> str:
        return self.t["unsure"].format(group=_capital(self.place(group_key)), values=self.values(value_mask))

    def claim_ok(self, group_key, value_mask: int) -> str:
        return self.t["claim_ok"].format(group=_capital(self.place(group_key)), values=self.values(value_mask))

    def say(self, key: str, **kw) -> str:
        """A fixed sentence (``'draw'``, ``'line_lost'``, ``'two_new'``, ...) with pieces filled in."""
        text = self.t[key]
        fields = {}
        for name, value in kw.items():
            if name in ("piece", "old", "new"):
                case = "acc" if key.startswith("coach_") else "nom"
                fields[name] = self.piece(value, case)
            elif name == "pieces":
                fields[name] = self.pieces(value, "acc")
            else:
                fields[name] = value
        return _capital(text.format(**fields))

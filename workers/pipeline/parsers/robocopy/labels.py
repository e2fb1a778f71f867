# ruff: noqa: RUF001  (foreign words: Turkish dotless i and the like are meant)
"""Localised words robocopy writes, for :mod:`workers.pipeline.parsers.robocopy`.

Robocopy translates its header labels, summary rows, the Speed and Ended
labels, the file-list tags and its banner with the Windows display language,
and writes dates in the user's long-date format. The spellings marked
"(seen)" come from real logs (``shared/fixtures/real/robocopy``, some with
robocopy's own odd translations: pt-BR ``N.º de Vezes`` for *Times*, es
``Arch. ejecutables`` for *Exc Files*, zh-CN ``执行目录`` for *Exc Dirs*);
the others are the usual Windows translations. The parser never depends on a
label alone: the header's first three lines are Started/Source/Dest, the
summary rows come in the order Dirs/Files/Bytes/Times and have a fixed shape,
and a Speed line is "number unit/unit", so an unknown language still parses.

Keys are folded with :func:`fold_label` (accents, case, spaces and
punctuation dropped) so ``Rép :``, ``REP:`` and ``Rép.`` all match.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping


def fold_text(text: str) -> str:
    """Compatibility forms (full-width digits, NBSP) made plain, accents dropped, casefolded."""
    text = unicodedata.normalize("NFKC", text)
    stripped = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).casefold()


def fold_label(text: str) -> str:
    """A label reduced to its letters: ``"N.º de Vezes"`` -> ``"nodevezes"``."""
    return "".join(ch for ch in fold_text(text) if ch.isalnum())


def _table(groups: Mapping[str, Iterable[str]]) -> dict[str, str]:
    table: dict[str, str] = {}
    for kind, labels in groups.items():
        for label in labels:
            key = fold_label(label)
            if table.get(key, kind) != kind:
                raise ValueError(f"label {label!r} maps to both {table[key]!r} and {kind!r}")
            table[key] = kind
    return table


# Header lines between the banner and the first rule.
HEADER_LABELS = _table(
    {
        "started": (
            "Started",  # en (seen)
            "Gestartet",  # de
            "Démarrage",  # fr (seen)
            "Démarré",
            "Iniciado",  # es, pt (seen)
            "Avviato",  # it
            "Gestart",  # nl
            "開始",  # ja (seen)
            "开始时间",  # zh-CN (seen)
            "開始時間",  # zh-TW
            "시작",  # ko
            "Начало",  # ru
            "Запущено",
            "Rozpoczęto",  # pl
            "Başlangıç",  # tr
            "Startad",  # sv
            "بدء",  # ar
            "البدء",
        ),
        "source": (
            "Source",  # en, fr (seen)
            "Quelle",  # de
            "Origen",  # es (seen)
            "Origem",  # pt (seen)
            "Origine",  # it
            "Bron",  # nl
            "コピー元",  # ja (seen)
            "源",  # zh-CN (seen)
            "來源",  # zh-TW
            "원본",  # ko
            "Источник",  # ru
            "Źródło",  # pl
            "Kaynak",  # tr
            "Källa",  # sv
            "المصدر",  # ar
        ),
        "destination": (
            "Dest",  # en, fr, pt (seen)
            "Destination",
            "Ziel",  # de
            "Destino",  # es (seen)
            "Destinazione",  # it
            "Doel",  # nl
            "コピー先",  # ja (seen)
            "目标",  # zh-CN (seen)
            "目的地",  # zh-TW
            "대상",  # ko
            "Назначение",  # ru
            "Miejsce docelowe",  # pl
            "Hedef",  # tr
            "Mål",  # sv
            "الوجهة",  # ar
        ),
        "options": (
            "Options",  # en, fr (seen)
            "Optionen",  # de
            "Opciones",  # es (seen)
            "Opções",  # pt (seen)
            "Opzioni",  # it
            "Opties",  # nl
            "オプション",  # ja (seen)
            "选项",  # zh-CN (seen)
            "選項",  # zh-TW
            "옵션",  # ko
            "Параметры",  # ru
            "Opcje",  # pl
            "Seçenekler",  # tr
            "Alternativ",  # sv
            "الخيارات",  # ar
        ),
    }
)

# Rows of the summary table.
SUMMARY_LABELS = _table(
    {
        "dirs": (
            "Dirs",  # en (seen)
            "Verzeich.",  # de
            "Rép",  # fr (seen)
            "Director.",  # es (seen)
            "Directorios",
            "Diretórios",  # pt (seen)
            "Pastas",
            "Directory",  # it
            "Mappen",  # nl
            "ディレクトリ",  # ja (seen)
            "目录",  # zh-CN (seen)
            "目錄",  # zh-TW
            "디렉터리",  # ko
            "Каталогов",  # ru
            "Папок",
            "Katalogi",  # pl
            "Dizinler",  # tr
            "Kataloger",  # sv
            "الدلائل",  # ar
            "المجلدات",
        ),
        "files": (
            "Files",  # en (seen)
            "Dateien",  # de
            "Fichiers",  # fr (seen)
            "Archivos",  # es (seen)
            "Arquivos",  # pt (seen)
            "Ficheiros",
            "File",  # it
            "Bestanden",  # nl
            "ファイル",  # ja (seen)
            "文件",  # zh-CN (seen)
            "檔案",  # zh-TW
            "파일",  # ko
            "Файлов",  # ru
            "Pliki",  # pl
            "Dosyalar",  # tr
            "Filer",  # sv
            "الملفات",  # ar
        ),
        "bytes": (
            "Bytes",  # en, es, pt (seen)
            "Octets",  # fr (seen)
            "Byte",  # it
            "バイト",  # ja (seen)
            "字节",  # zh-CN (seen)
            "位元組",  # zh-TW
            "바이트",  # ko
            "Байт",  # ru
            "Bajty",  # pl
            "Bayt",  # tr
            "البايت",  # ar
            "بايت",
        ),
        "times": (
            "Times",  # en (seen)
            "Zeiten",  # de
            "Heures",  # fr (seen)
            "Temps",
            "Tiempo",  # es (seen)
            "Tiempos",
            "N.º de Vezes",  # pt-BR (seen)
            "Horas",
            "Tempos",
            "Tempi",  # it
            "Tijden",  # nl
            "時刻",  # ja (seen)
            "时间",  # zh-CN (seen)
            "時間",  # zh-TW
            "시간",  # ko
            "Время",  # ru
            "Czasy",  # pl
            "Süreler",  # tr
            "Tider",  # sv
            "الأوقات",  # ar
        ),
    }
)

SPEED_LABELS = frozenset(
    fold_label(label)
    for label in (
        "Speed",  # en (seen)
        "Geschwindigkeit",  # de
        "Débit",  # fr (seen)
        "Vitesse",
        "Velocidad",  # es (seen)
        "Velocidade",  # pt (seen)
        "Velocità",  # it
        "Snelheid",  # nl
        "速度",  # ja, zh (seen)
        "속도",  # ko
        "Скорость",  # ru
        "Szybkość",  # pl
        "Hız",  # tr
        "Hastighet",  # sv
        "السرعة",  # ar
    )
)

ENDED_LABELS = frozenset(
    fold_label(label)
    for label in (
        "Ended",  # en (seen)
        "Beendet",  # de
        "Fin",  # fr (seen)
        "Finalizado",  # es (seen)
        "Finalizado em",  # pt-BR (seen)
        "Terminado",
        "Concluído",
        "Terminato",  # it
        "Beëindigd",  # nl
        "終了",  # ja (seen)
        "已结束",  # zh-CN (seen)
        "結束",  # zh-TW
        "종료",  # ko
        "Завершено",  # ru
        "Окончание",
        "Zakończono",  # pl
        "Bitiş",  # tr
        "Avslutad",  # sv
        "انتهى",  # ar
        "الانتهاء",
    )
)

# Words that only a correctly decoded robocopy log holds: banners and
# file-list tags (the labels above are added to them). Used to tell an OEM
# code page from the ANSI one a generic detector may prefer.
BANNERS = (
    "Robust File Copy for Windows",  # en (seen)
    "Robust File Copy para Windows",  # pt-BR (seen)
    "Copie de fichiers robuste pour Windows",  # fr (seen)
    "Herramienta para copia eficaz de archivos",  # es (seen)
    "Robustes Dateikopieren für Windows",  # de
    "Windows の堅牢性の高いファイル コピー",  # ja (seen)
    "Windows 的可靠文件复制",  # zh-CN (seen)
)
FILE_TAGS = (
    "Nouveau fichier",  # fr (seen)
    "Nouveau rép.",  # fr (seen)
    "Plus récent",
    "Plus ancien",
    "Nuevo arch",  # es (seen)
    "Más reciente",  # es (seen)
    "Más antiguo",
    "Novo Arquivo",  # pt (seen)
    "Mais recente",
    "Mais antigo",
    "Neue Datei",  # de
    "Älter",
    "新しいファイル",  # ja (seen)
    "新しいディレクトリ",
    "新文件",  # zh-CN (seen)
    "新目录",
    "较新",
    "较旧",
)


def _evidence() -> tuple[str, ...]:
    words: set[str] = set(BANNERS) | set(FILE_TAGS)
    for group in (
        (
            "Démarrage",
            "Iniciado",
            "Opções",
            "Diretórios",
            "Rép",
            "Débit",
            "Copié",
            "Ignoré",
            "Échec",
            "ÉCHEC",
        ),
        ("Verzeich.", "Übersprungen", "Keine Übereinstimmung", "Geschwindigkeit"),
        (
            "開始",
            "コピー元",
            "コピー先",
            "オプション",
            "ディレクトリ",
            "バイト",
            "時刻",
            "終了",
            "コピー済み",
        ),
        ("开始时间", "目标", "选项", "目录", "字节", "时间", "速度", "已结束", "总数", "复制", "跳过"),
        ("Méga-octets", "Octets/sec", "バイト/秒", "字节/秒", "MB/分", "N.º de Vezes", "Incompatibilidade"),
    ):
        words.update(group)
    return tuple(sorted(word for word in words if not word.isascii()))


EVIDENCE = _evidence()


# Month names as written in long dates (nominative and genitive forms, common
# abbreviations). Folded with fold_text; checked for clashes at import.
# fmt: off
_MONTHS: tuple[tuple[str, ...], ...] = (
    # en
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"),
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sept", "oct", "nov", "dec"),
    # de
    ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"),
    ("jänner", "feber", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"),
    # fr
    ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"),
    ("janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"),
    # es
    ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"),
    ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "setiembre", "oct", "nov", "dic"),
    # pt
    ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"),
    ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"),
    # it
    ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"),
    ("gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"),
    # nl, sv, da, no
    ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"),
    ("januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"),
    ("januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december"),
    # ru (nominative, genitive)
    ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь", "ноябрь", "декабрь"),
    ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"),
    # pl (genitive)
    ("stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"),
    # tr
    ("ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim", "kasım", "aralık"),
    # ar: Egypt/Gulf, Levant/Iraq, Maghreb
    ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"),
    ("يناير", "فبراير", "مارس", "ابريل", "مايو", "يونيه", "يوليه", "اغسطس", "سبتمبر", "اكتوبر", "نوفمبر", "ديسمبر"),
    ("كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول", "تشرين الأول", "تشرين الثاني", "كانون الأول"),
    ("جانفي", "فيفري", "مارس", "أفريل", "ماي", "جوان", "جويلية", "أوت", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"),
)
# fmt: on


def _month_table() -> dict[str, int]:
    table: dict[str, int] = {}
    for names in _MONTHS:
        for month, name in enumerate(names, start=1):
            key = fold_text(name)
            if table.get(key, month) != month:
                raise ValueError(f"month name {name!r} means both {table[key]} and {month}")
            table[key] = month
    return table


MONTHS = _month_table()

# 12-hour clock markers other than a.m./p.m. (matched on folded text).
AM_MARKERS = tuple(fold_text(word) for word in ("午前", "上午", "오전", "π.μ.", "πμ", "ص"))
PM_MARKERS = tuple(fold_text(word) for word in ("午後", "下午", "오후", "μ.μ.", "μμ", "م"))

"""Localised Windows performance-counter names mapped to their English names.

Windows stores counter and object names per UI language (the registry's
``Perflib\\<language id>\\Counter`` list), and Performance Monitor, ``relog``
and ``typeperf`` write the *localised* names into a CSV header. The rest of
Headroom compares series by their English names (``Processor`` /
``% Processor Time``), so the parser maps the names it knows and keeps the
column as written in ``CounterColumn.source_path``.

Only names seen in real output are listed: the Russian ones in the
``waflia_*`` fixture and in Russian scripts that query these counters, the
German ones in a dump of a German ``Perflib`` name list, and the others in
scripts and collector configurations from localised machines. A name we are
not sure of is left out -- an unmapped column keeps its localised name, which
is honest, where a wrong mapping would silently mix two different series.

Looked up but deliberately absent:

* Japanese: no Japanese spelling of these objects or counters turned up in
  real output (Japanese Windows appears to keep them in English), so none is
  listed.
* Chinese (simplified): only ``处理器`` / ``% 处理器时间`` could be confirmed.
* Russian ``Bytes Received/sec`` and ``Bytes Sent/sec``, Spanish, Portuguese
  and Italian counters not listed below: the spellings found disagree.

Counter names are keyed by the (English) object they belong to, because the
same localised word means different things under different objects (German
``Lesevorgänge/s`` is ``Disk Reads/sec`` under a disk but
``File Read Operations/sec`` under ``System``). Lookups ignore case and treat
the typographic apostrophe (U+2019) like ``'`` -- French Windows builds
differ on that -- and names are otherwise matched exactly.
"""

# The tables below are Cyrillic, accented and CJK text on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

from collections.abc import Mapping

PHYSICAL_DISK = "PhysicalDisk"
LOGICAL_DISK = "LogicalDisk"
PROCESSOR = "Processor"
MEMORY = "Memory"
NETWORK_INTERFACE = "Network Interface"
PROCESS = "Process"
SYSTEM = "System"

# --- Russian (ru-RU) ---------------------------------------------------------

_RU_OBJECTS = {
    "Процессор": PROCESSOR,
    "Память": MEMORY,
    "Физический диск": PHYSICAL_DISK,
    "Логический диск": LOGICAL_DISK,
    "Сетевой интерфейс": NETWORK_INTERFACE,
    "Процесс": PROCESS,
    "Система": SYSTEM,
}
_RU_DISK = {
    "Средняя длина очереди диска": "Avg. Disk Queue Length",
    "Текущая длина очереди диска": "Current Disk Queue Length",
    "Обращений к диску/с": "Disk Transfers/sec",
    "Обращений чтения с диска/с": "Disk Reads/sec",
    "Обращений записи на диск/с": "Disk Writes/sec",
    "Скорость обмена с диском (байт/с)": "Disk Bytes/sec",
    "Скорость чтения с диска (байт/с)": "Disk Read Bytes/sec",
    "Скорость записи на диск (байт/с)": "Disk Write Bytes/sec",
    "Среднее время обращения к диску (с)": "Avg. Disk sec/Transfer",
    "Процент времени бездействия": "% Idle Time",
    "% активности диска": "% Disk Time",
}
_RU_COUNTERS = {
    PROCESSOR: {
        "% загруженности процессора": "% Processor Time",
        "Процент времени бездействия": "% Idle Time",
        "% работы в пользовательском режиме": "% User Time",
        "% работы в привилегированном режиме": "% Privileged Time",
    },
    PHYSICAL_DISK: _RU_DISK,
    LOGICAL_DISK: _RU_DISK,
    MEMORY: {
        "Доступно МБ": "Available MBytes",
        "% использования выделенной памяти": "% Committed Bytes In Use",
        "Обмен страниц/с": "Pages/sec",
    },
    NETWORK_INTERFACE: {
        "Всего байт/с": "Bytes Total/sec",
    },
    PROCESS: {
        "% загруженности процессора": "% Processor Time",
        "Рабочий набор": "Working Set",
        "I/O - чтение байт в сек": "IO Read Bytes/sec",
        "I/O - запись байт в сек": "IO Write Bytes/sec",
    },
}

# --- German (de-DE) ----------------------------------------------------------

_DE_OBJECTS = {
    "Prozessor": PROCESSOR,
    "Arbeitsspeicher": MEMORY,
    "Speicher": MEMORY,  # older Windows releases
    "Physikalischer Datenträger": PHYSICAL_DISK,
    "Logischer Datenträger": LOGICAL_DISK,
    "Netzwerkschnittstelle": NETWORK_INTERFACE,
    "Prozess": PROCESS,
}
_DE_DISK = {
    "Durchschnittl. Warteschlangenlänge des Datenträgers": "Avg. Disk Queue Length",
    "Aktuelle Warteschlangenlänge": "Current Disk Queue Length",
    "Übertragungen/s": "Disk Transfers/sec",
    "Lesevorgänge/s": "Disk Reads/sec",
    "Schreibvorgänge/s": "Disk Writes/sec",
    "Bytes/s": "Disk Bytes/sec",
    "Bytes gelesen/s": "Disk Read Bytes/sec",
    "Bytes geschrieben/s": "Disk Write Bytes/sec",
    "Mittlere Sek./Übertragung": "Avg. Disk sec/Transfer",
    "Leerlaufzeit (%)": "% Idle Time",
    "Zeit (%)": "% Disk Time",
}
_DE_COUNTERS = {
    PROCESSOR: {
        "Prozessorzeit (%)": "% Processor Time",
        "Leerlaufzeit (%)": "% Idle Time",
        "Benutzerzeit (%)": "% User Time",
        "Privilegierte Zeit (%)": "% Privileged Time",
    },
    PHYSICAL_DISK: _DE_DISK,
    LOGICAL_DISK: _DE_DISK,
    MEMORY: {
        "Verfügbare MB": "Available MBytes",
        "Zugesicherte verwendete Bytes (%)": "% Committed Bytes In Use",
        "Seiten/s": "Pages/sec",
    },
    NETWORK_INTERFACE: {
        "Gesamtanzahl Bytes/s": "Bytes Total/sec",
        "Empfangene Bytes/s": "Bytes Received/sec",
        "Bytes gesendet/s": "Bytes Sent/sec",
    },
    PROCESS: {
        "Prozessorzeit (%)": "% Processor Time",
        "Arbeitsseiten": "Working Set",
        "E/A-Bytes gelesen/s": "IO Read Bytes/sec",
        "E/A-Bytes geschrieben/s": "IO Write Bytes/sec",
    },
}

# --- French (fr-FR) ----------------------------------------------------------

_FR_OBJECTS = {
    "Processeur": PROCESSOR,
    "Mémoire": MEMORY,
    "Disque physique": PHYSICAL_DISK,
    "Disque logique": LOGICAL_DISK,
    "Interface réseau": NETWORK_INTERFACE,
    "Processus": PROCESS,
    "Système": SYSTEM,
}
_FR_DISK = {
    "Longueur moyenne de file d'attente du disque": "Avg. Disk Queue Length",
    "Taille de file d'attente du disque actuelle": "Current Disk Queue Length",
    "Transferts disque/s": "Disk Transfers/sec",
    "Lectures disque/s": "Disk Reads/sec",
    "Écritures disque/s": "Disk Writes/sec",
    "Octets disque/s": "Disk Bytes/sec",
    "Lectures disque, octets/s": "Disk Read Bytes/sec",
    "Écritures disque, octets/s": "Disk Write Bytes/sec",
    "Moyenne disque s/transfert": "Avg. Disk sec/Transfer",
    "% d'inactivité": "% Idle Time",
    "Pourcentage du temps disque": "% Disk Time",
}
_FR_COUNTERS = {
    PROCESSOR: {
        "% temps processeur": "% Processor Time",
        "% d'inactivité": "% Idle Time",
        "% temps utilisateur": "% User Time",
        "% temps privilégié": "% Privileged Time",
    },
    PHYSICAL_DISK: _FR_DISK,
    LOGICAL_DISK: _FR_DISK,
    MEMORY: {
        "Mégaoctets disponibles": "Available MBytes",
        "Pourcentage d'octets dédiés utilisés": "% Committed Bytes In Use",
        "Pages/s": "Pages/sec",
    },
    NETWORK_INTERFACE: {
        "Total des octets/s": "Bytes Total/sec",
        "Octets reçus/s": "Bytes Received/sec",
        "Octets envoyés/s": "Bytes Sent/sec",
    },
    PROCESS: {
        "% temps processeur": "% Processor Time",
    },
}

# --- Spanish (es-ES) ---------------------------------------------------------

_ES_OBJECTS = {
    "Procesador": PROCESSOR,
    "Memoria": MEMORY,  # also Italian
    "Disco físico": PHYSICAL_DISK,  # also Portuguese (pt-PT)
    "Disco lógico": LOGICAL_DISK,
    "Interfaz de red": NETWORK_INTERFACE,
}
_ES_DISK = {
    "Longitud actual de la cola de disco": "Current Disk Queue Length",
    "Transferencias de disco/s": "Disk Transfers/sec",
    "Bytes de lectura de disco/s": "Disk Read Bytes/sec",
    "Bytes de escritura en disco/s": "Disk Write Bytes/sec",
    "% de tiempo inactivo": "% Idle Time",
    "% de tiempo de disco": "% Disk Time",
}
_ES_COUNTERS = {
    PROCESSOR: {
        "% de tiempo de procesador": "% Processor Time",
        "% de tiempo de usuario": "% User Time",
        "% de tiempo privilegiado": "% Privileged Time",
    },
    PHYSICAL_DISK: _ES_DISK,
    LOGICAL_DISK: _ES_DISK,
    MEMORY: {
        "Mbytes disponibles": "Available MBytes",
        "% de bytes confirmados en uso": "% Committed Bytes In Use",
        "Páginas/s": "Pages/sec",
    },
    NETWORK_INTERFACE: {
        "Total de bytes/s": "Bytes Total/sec",
        "Bytes recibidos/s": "Bytes Received/sec",
        "Bytes enviados/s": "Bytes Sent/sec",
    },
}

# --- Portuguese (pt-BR; it keeps the object name ``PhysicalDisk``) -------------

_PT_OBJECTS = {
    "Processador": PROCESSOR,
    "Memória": MEMORY,
}
_PT_COUNTERS = {
    PROCESSOR: {
        "% tempo de processador": "% Processor Time",
        "% tempo inativo": "% Idle Time",
    },
    PHYSICAL_DISK: {
        "% tempo de disco": "% Disk Time",
    },
    MEMORY: {
        "% bytes confirmados em uso": "% Committed Bytes In Use",
    },
}

# --- Italian (it-IT) ---------------------------------------------------------

_IT_OBJECTS = {
    "Processore": PROCESSOR,
    "Disco fisico": PHYSICAL_DISK,
    "Processo": PROCESS,
}
_IT_COUNTERS = {
    PROCESSOR: {
        "% Tempo processore": "% Processor Time",
    },
    PHYSICAL_DISK: {
        "% Tempo disco": "% Disk Time",
        "Trasferimenti disco/sec": "Disk Transfers/sec",
        "Byte letti da disco/sec": "Disk Read Bytes/sec",
        "Byte scritti su disco/sec": "Disk Write Bytes/sec",
    },
    MEMORY: {
        "MByte disponibili": "Available MBytes",
    },
    PROCESS: {
        "% Tempo processore": "% Processor Time",
        "Byte letti IO/sec": "IO Read Bytes/sec",
        "Byte scritti IO/sec": "IO Write Bytes/sec",
    },
}

# --- Chinese, simplified (zh-CN) ---------------------------------------------

_ZH_OBJECTS = {
    "处理器": PROCESSOR,
}
_ZH_COUNTERS = {
    PROCESSOR: {
        "% 处理器时间": "% Processor Time",
    },
}

_LANGUAGES: tuple[tuple[Mapping[str, str], Mapping[str, Mapping[str, str]]], ...] = (
    (_RU_OBJECTS, _RU_COUNTERS),
    (_DE_OBJECTS, _DE_COUNTERS),
    (_FR_OBJECTS, _FR_COUNTERS),
    (_ES_OBJECTS, _ES_COUNTERS),
    (_PT_OBJECTS, _PT_COUNTERS),
    (_IT_OBJECTS, _IT_COUNTERS),
    (_ZH_OBJECTS, _ZH_COUNTERS),
)


def _key(name: str) -> str:
    return name.replace("\u2019", "'").casefold()


def _merge(target: dict[str, str], source: Mapping[str, str], where: str) -> None:
    for localised, english in source.items():
        key = _key(localised)
        if target.get(key, english) != english:
            raise ValueError(f"{where}: {localised!r} maps to both {target[key]!r} and {english!r}")
        target[key] = english


def _build() -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    objects: dict[str, str] = {}
    counters: dict[str, dict[str, str]] = {}
    for language_objects, language_counters in _LANGUAGES:
        _merge(objects, language_objects, "object")
        for english_object, names in language_counters.items():
            _merge(counters.setdefault(english_object, {}), names, english_object)
    return objects, counters


_OBJECTS, _COUNTERS = _build()


def canonical_object(name: str) -> str:
    """The English name of a counter object, or ``name`` itself when unknown."""
    return _OBJECTS.get(_key(name), name)


def canonical_counter(english_object: str, name: str) -> str:
    """The English name of counter ``name`` of ``english_object``, or ``name`` when unknown."""
    names = _COUNTERS.get(english_object)
    if names is None:
        return name
    return names.get(_key(name), name)

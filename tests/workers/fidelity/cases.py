"""Every real fixture's figures as the tool printed them: the table the fidelity tests compare with.

Folders of captures that are not uploads (``NOT_UPLOADS``: what the agent's inventory reads off a
machine) are tested where they are read, not here.

The expected values were copied by hand from the files' text (their line is
noted), at the precision the tool printed. A stored figure must be within half
a unit of the last digit printed, in the unit printed or an exact conversion
of it (MiB/s -> MB/s is x 1.048576; microseconds -> milliseconds is / 1000).

A table of expected values, so longer than the ~400 lines a module is kept to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.paths import FIXTURES

DISKSPD_TXT = FIXTURES / "diskspd_txt"
DISKSPD_XML = FIXTURES / "diskspd_xml"
FIO = FIXTURES / "fio_json"
ROBOCOPY = FIXTURES / "robocopy"
EVTX = FIXTURES / "eventlog_logon"
PERFMON = FIXTURES / "perfmon_csv"
GET_COUNTER = FIXTURES / "get_counter"
SYSSTAT = FIXTURES / "sysstat"
SADF_AT = datetime(2019, 4, 18, 13, 20, 29, tzinfo=UTC)  # the second statistics of sysstat's own test data
WRITE_8K = DISKSPD_TXT / "vc_DiskSpd_Write8k_utf8bom_manythreads.txt"
SINGLE_4K = DISKSPD_TXT / "vc_DiskSpd_2.2.0_SingleGroup.txt"
MIB = 1024 * 1024 / 1_000_000  # MiB/s -> MB/s, exactly
SCENARIO = {"disk": "ssd"}
NOT_UPLOADS = ("linux_inventory",)


@dataclass(frozen=True)
class Printed:
    """A figure as the file prints it; stored = printed x ``scale`` (an exact unit conversion)."""

    metric: str
    text: str
    scale: float = 1.0
    subject: str = ""
    time: datetime | None = None  # the row's time; None = any row of this metric and subject


@dataclass(frozen=True)
class Sample:
    """A perfmon cell: its column and the row's time in UTC, and the text the file holds."""

    object: str
    instance: str
    counter: str
    time: datetime
    text: str


@dataclass(frozen=True)
class Case:
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    figures: tuple[Printed, ...] = ()
    samples: tuple[Sample, ...] = ()
    time: datetime | None = None  # every measurement's time when the file has one run


def _at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


KIB, MIB_B, GIB = 1024, 1024**2, 1024**3  # robocopy k, m, g
KIB_MB = 1024 / 1_000_000  # fio 2.x "bw" (KiB/s) -> MB/s
US_MS, NS_MS, MS_S = 0.001, 0.000001, 0.001  # fio usec / nsec -> ms, msec -> s
STARTED = {"extra": {"started_at": "2015-07-01T00:00:00+00:00"}}


def _p(
    metric: str, text: str, scale: float = 1.0, subject: str = "", time: datetime | None = None
) -> Printed:
    return Printed(metric, text, scale, subject, time)


CASES: dict[str, Case] = {
    # DiskSpd text: the "total:" rows of Total/Read/Write IO, the all-target %-ile table, "avg." CPU
    "diskspd_txt/basilkisel_azure_A2_single.txt": Case(
        DISKSPD_TXT / "basilkisel_azure_A2_single.txt",
        STARTED,
        (
            _p("total.bytes", "992047104"),
            _p("total.ios", "242199"),
            _p("total.mbps", "1.58", MIB),
            _p("total.iops", "403.66"),
            _p("total.latency.avg_ms", "158.382"),
            _p("total.latency.stddev_ms", "205.742"),
            _p("read.iops", "202.49"),
            _p("read.mbps", "0.79", MIB),
            _p("write.iops", "201.17"),
            _p("total.latency.p99_ms", "824.992"),
            _p("read.latency.max_ms", "7223.589"),
            _p("cpu.usage_pct", "3.71"),
        ),
        time=_at(2015, 7, 1),
    ),
    "diskspd_txt/basilkisel_lenovo_cp1251_wrapped80.txt": Case(
        DISKSPD_TXT / "basilkisel_lenovo_cp1251_wrapped80.txt",
        STARTED,
        (
            _p("total.bytes", "538320896"),
            _p("total.ios", "131426"),
            _p("total.mbps", "0.86", MIB),
            _p("total.iops", "219.04"),
            _p("total.latency.avg_ms", "292.328"),
            _p("read.mbps", "0.43", MIB),
            _p("read.iops", "109.77"),
            _p("write.iops", "109.27"),
            _p("total.latency.p99_ms", "1088.947"),
            _p("write.latency.max_ms", "3040.254"),
            _p("cpu.usage_pct", "3.39"),
        ),
        time=_at(2015, 7, 1),
    ),
    "diskspd_txt/vc_DiskSpd_2.0.21_32threads_escapedpath.txt": Case(
        DISKSPD_TXT / "vc_DiskSpd_2.0.21_32threads_escapedpath.txt",
        figures=(
            _p("total.bytes", "563719340032"),
            _p("total.ios", "68813396"),
            _p("total.mbps", "597.33", MIB),
            _p("total.iops", "76458.71"),
            _p("total.latency.avg_ms", "6.696"),
            _p("total.iops_stddev", "372.31"),
            _p("total.latency.stddev_ms", "14.719"),
            _p("read.iops", "0.00"),
            _p("write.iops", "76458.71"),
            _p("write.latency.p99_ms", "57.658"),
            _p("total.latency.max_ms", "159.270"),
            _p("cpu.usage_pct", "6.15"),
        ),
        time=_at(2023, 10, 13, 6, 22, 25),
    ),
    "diskspd_txt/vc_DiskSpd_2.0.21_ReadWrite_noCmdLine.txt": Case(
        DISKSPD_TXT / "vc_DiskSpd_2.0.21_ReadWrite_noCmdLine.txt",
        figures=(
            _p("total.bytes", "146169856"),
            _p("total.ios", "35686"),
            _p("total.mbps", "4.64", MIB),
            _p("total.iops", "1189.03"),
            _p("read.iops", "834.98"),
            _p("write.iops", "354.05"),
            _p("read.mbps", "3.26", MIB),
            _p("write.mbps", "1.38", MIB),
            _p("read.latency.avg_ms", "0.272"),
            _p("write.iops_stddev", "38.48"),
            _p("total.latency.p99_ms", "4.713"),
            _p("write.latency.max_ms", "35.257"),
            _p("cpu.usage_pct", "0.82"),
            _p("cpu.idle_pct", "99.18"),
            _p("read.iops", "834.98", subject="diskspd.dat"),
        ),
        time=_at(2021, 4, 16, 19, 3, 38),
    ),
    "diskspd_txt/vc_DiskSpd_2.2.0_SingleGroup.txt": Case(
        SINGLE_4K,
        figures=(
            _p("total.bytes", "20819968"),
            _p("total.ios", "5083"),
            _p("total.mbps", "1.98", MIB),
            _p("total.iops", "508.09"),
            _p("total.latency.avg_ms", "125.800"),
            _p("total.iops_stddev", "1.62"),
            _p("total.latency.stddev_ms", "25.418"),
            _p("write.latency.p99_ms", "161.752"),
            _p("write.latency.max_ms", "164.312"),
            _p("cpu.usage_pct", "1.13"),
        ),
        time=_at(2026, 6, 22, 22, 16, 45),
    ),
    "diskspd_txt/vc_DiskSpd_Write8k_utf8bom_manythreads.txt": Case(
        WRITE_8K,
        figures=(
            _p("total.bytes", "162301329408"),
            _p("total.ios", "19812174"),
            _p("total.mbps", "2579.05", MIB),
            _p("total.iops", "330118.77"),
            _p("total.latency.avg_ms", "7.681"),
            _p("total.iops_stddev", "178867.92"),
            _p("total.latency.stddev_ms", "42.583"),
            _p("total.latency.p99_ms", "368.150"),
            _p("total.latency.max_ms", "3134.107"),
            _p("cpu.usage_pct", "39.69"),
            _p("write.latency.p99_ms", "24.265", subject="E:\\diskspd-test.dat"),
        ),
        time=_at(2024, 1, 8, 4, 54, 1),
    ),
    # DiskSpd XML: no rates printed; counts (summed over the <Thread>s), <Latency>, CPU <Average>
    "diskspd_xml/pkb_diskspd_result_2.0.21a_nolatency_2018.xml": Case(
        DISKSPD_XML / "pkb_diskspd_result_2.0.21a_nolatency_2018.xml",
        figures=(
            _p("read.ios", str(22645 + 22623 + 22548 + 23154)),
            _p("read.bytes", str(1484062720 + 1482620928 + 1477705728 + 1517420544)),
            _p("write.ios", "0"),
            _p("cpu.usage_pct", "3.20"),
            _p("cpu.idle_pct", "96.80"),
        ),
        time=_at(2018, 10, 18, 21, 39, 4),
    ),
    "diskspd_xml/vc_Results_DiskSpd_2.0.21a.xml": Case(
        DISKSPD_XML / "vc_Results_DiskSpd_2.0.21a.xml",
        figures=(
            _p("read.bytes", "152215552"),
            _p("read.ios", "37162"),
            _p("write.bytes", "64524288"),
            _p("write.ios", "15753"),
            _p("read.latency.avg_ms", "2.477"),
            _p("read.latency.stddev_ms", "2.732"),
            _p("total.latency.avg_ms", "2.266"),
            _p("total.latency.stddev_ms", "2.329"),
            _p("total.latency.p99_ms", "19.270"),
            _p("read.latency.p99_ms", "21.897"),
            _p("read.latency.min_ms", "0.045"),
            _p("cpu.usage_pct", "0.99"),
        ),
        time=_at(2021, 4, 14, 23, 25, 42),
    ),
    # fio JSON: per job; fio 2.x prints usec and KiB, fio 3.x nsec and bytes
    "fio_json/pkb_fio-2.1.4_5jobs.json": Case(
        FIO / "pkb_fio-2.1.4_5jobs.json",
        STARTED,
        tuple(
            _p(metric, text, scale, "random_read_test")
            for metric, text, scale in (
                ("read.iops", "317", 1.0),
                ("read.mbps", "1269", KIB_MB),
                ("read.clat.mean_ms", "3117.62", US_MS),
                ("read.clat.p50_ms", "3280", US_MS),
                ("read.lat.mean_ms", "3146.50", US_MS),
                ("read.runtime_s", "28540", MS_S),
            )
        ),
        time=_at(2015, 7, 1),
    ),
    "fio_json/pkb_fio-2.17_global_options_hist.json": Case(
        FIO / "pkb_fio-2.17_global_options_hist.json",
        figures=tuple(
            _p(metric, text, scale, "rand_16k_read_100%-io-depth-1-num-jobs-2")
            for metric, text, scale in (
                ("read.iops", "8086.673998", 1.0),
                ("read.mbps", "129386", KIB_MB),
                ("read.io_bytes", "1294256", KIB),
                ("read.clat.mean_ms", "238.357679", US_MS),
                ("read.clat.p50_ms", "96", US_MS),
                ("read.clat.p99_ms", "1352", US_MS),
                ("read.lat.mean_ms", "245.531122", US_MS),
                ("read.runtime_s", "10003", MS_S),
            )
        ),
        time=_at(2017, 9, 28, 0, 45, 52),  # "timestamp" : 1506559552
    ),
    "fio_json/vc_fio-3.13_randread.json": Case(
        FIO / "vc_fio-3.13_randread.json",
        figures=tuple(
            _p(metric, text, scale, "fiotest")
            for metric, text, scale in (
                ("read.iops", "35516.054735", 1.0),
                ("read.bw_bytes_per_s", "145473760", 1.0),
                ("read.io_bytes", "1073741824", 1.0),
                ("read.clat.mean_ms", "7843056.611698", NS_MS),
                ("read.clat.p50_ms", "6717440", NS_MS),
                ("read.clat.p99_ms", "67633152", NS_MS),
                ("read.runtime_s", "7381", MS_S),
            )
        ),
        time=_at(2020, 3, 27, 2, 13, 49),  # "timestamp": 1585275229
    ),
    "fio_json/vc_fio-3.13_with_error_prefix.json": Case(
        FIO / "vc_fio-3.13_with_error_prefix.json",
        figures=tuple(
            _p(metric, text, scale, "fiotest")
            for metric, text, scale in (
                ("read.iops", "49501.318267", 1.0),
                ("read.bw_bytes_per_s", "202249835", 1.0),
                ("read.io_bytes", "536973312", 1.0),
                ("read.clat.mean_ms", "5922036.884193", NS_MS),
                ("read.lat.mean_ms", "5933374.176961", NS_MS),
                ("read.clat.p50_ms", "6258688", NS_MS),
                ("read.clat.p99_ms", "10420224", NS_MS),
                ("read.runtime_s", "2655", MS_S),
            )
        ),
        time=_at(2020, 8, 25, 19, 57, 13),  # "timestamp" : 1598385433
    ),
    "fio_json/vc_fio-3.26-19-ge7e53_readwrite.json": Case(
        FIO / "vc_fio-3.26-19-ge7e53_readwrite.json",
        figures=tuple(
            _p(metric, text, scale, "disk_fill")
            for metric, text, scale in (
                ("read.iops", "569.699415", 1.0),
                ("read.bw_bytes_per_s", "149343283", 1.0),
                ("read.io_bytes", "740294656", 1.0),
                ("read.clat.mean_ms", "76331646.873584", NS_MS),
                ("read.clat.p50_ms", "99090432", NS_MS),
                ("read.clat.p99_ms", "104333312", NS_MS),
                ("read.lat.mean_ms", "76352539.600213", NS_MS),
                ("read.runtime_s", "4957", MS_S),
                ("write.io_bytes", "333447168", 1.0),
            )
        ),
        time=_at(2022, 3, 10, 0, 52, 35),  # "timestamp" : 1646873555
    ),
    "fio_json/vc_fio-3.26_randwrite.json": Case(
        FIO / "vc_fio-3.26_randwrite.json",
        figures=tuple(
            _p(metric, text, scale, "fio_randrw_1GB_4k_d1_th1_direct")
            for metric, text, scale in (
                ("read.iops", "2160.561601", 1.0),
                ("read.bw_bytes_per_s", "7876980", 1.0),
                ("read.io_bytes", "1071141824", 1.0),
                ("read.clat.mean_ms", "418273.267365", NS_MS),
                ("read.clat.p50_ms", "92648", NS_MS),
                ("read.clat.p99_ms", "263192", NS_MS),
                ("read.lat.mean_ms", "459323.126984", NS_MS),
                ("read.runtime_s", "110948", MS_S),
            )
        ),
        time=_at(2021, 4, 17, 22, 41, 11),  # "timestamp" : 1618699271
    ),
    # robocopy: the summary table (k/m/g are binary), Speed lines, Times; local times read as UTC here
    "robocopy/andrew_robocopy_utf16_NFL.log": Case(
        ROBOCOPY / "andrew_robocopy_utf16_NFL.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "991"),
            _p("dirs.copied", "981"),
            _p("files.total", "6755"),
            _p("files.extras", "1"),
            _p("bytes.total", "2.430", GIB),
            _p("bytes.skipped", "6.4", KIB),
            _p("time.total_s", "8"),
            _p("time.copied_s", "7"),
            _p("speed.bytes_per_s", "334750079"),
            _p("speed.mb_per_min", "19154.553"),
            _p("elapsed_s", "9"),  # 12:27:10 PM .. 12:27:19 PM
        ),
        time=_at(2026, 5, 30, 12, 27, 10),
    ),
    "robocopy/aoqtyii_robocopy_zhCN_gbk_speed.log": Case(
        ROBOCOPY / "aoqtyii_robocopy_zhCN_gbk_speed.log",
        {"timezone": "UTC"},
        tuple(  # the last job, started 2025年4月26日 16:17:48
            _p(metric, text, scale, time=_at(2025, 4, 26, 16, 17, 48))
            for metric, text, scale in (
                ("dirs.total", "24", 1.0),
                ("dirs.skipped", "1", 1.0),
                ("files.total", "142", 1.0),
                ("bytes.total", "327.7", KIB),
                ("speed.bytes_per_s", "1075592", 1.0),
                ("speed.mb_per_min", "61.546", 1.0),
            )
        ),
    ),
    "robocopy/dary_robocopy_esDO_latin.log": Case(
        ROBOCOPY / "dary_robocopy_esDO_latin.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "258"),
            _p("dirs.copied", "239"),
            _p("dirs.extras", "2"),
            _p("files.total", "703"),
            _p("bytes.total", "28.13", MIB_B),
            _p("bytes.skipped", "475.1", KIB),
            _p("bytes.extras", "374"),
            _p("speed.bytes_per_s", "102900492"),
            _p("speed.mb_per_min", "5888.014"),
        ),
        time=_at(2026, 1, 20, 15, 49, 12),  # 3:49:12 p. m.
    ),
    "robocopy/jw1210_robocopy_en_garbled_cjk_date.log": Case(
        ROBOCOPY / "jw1210_robocopy_en_garbled_cjk_date.log",
        {"timezone": "UTC", "extra": {"started_at": "2026-03-17T12:09:37+00:00"}},
        (
            _p("dirs.total", "1"),
            _p("dirs.skipped", "1"),
            _p("files.total", "3"),
            _p("files.skipped", "3"),
            _p("bytes.total", "95.9", KIB),
            _p("bytes.copied", "0"),
        ),
        time=_at(2026, 3, 17, 12, 9, 37),
    ),
    "robocopy/markrai_seen_robocopy_utf16.log": Case(
        ROBOCOPY / "markrai_seen_robocopy_utf16.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "686"),
            _p("files.total", "3656"),
            _p("files.extras", "2"),
            _p("bytes.total", "1.362", GIB),
            _p("bytes.skipped", "202.3", KIB),
            _p("bytes.extras", "95.3", KIB),
            _p("time.total_s", "4"),
            _p("speed.bytes_per_s", "371812354"),
            _p("speed.mb_per_min", "21275.273"),
            _p("elapsed_s", "5"),  # 8:39:53 PM .. 8:39:58 PM
        ),
        time=_at(2025, 12, 9, 20, 39, 53),
    ),
    "robocopy/mohamed_robocopy_frFR_cp850.log": Case(
        ROBOCOPY / "mohamed_robocopy_frFR_cp850.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "22"),
            _p("files.total", "41"),
            _p("bytes.total", "6.23", MIB_B),
            _p("speed.bytes_per_s", "43311158"),
            _p("speed.mb_per_min", "2478.284"),
            _p("elapsed_s", "1"),
        ),
        time=_at(2026, 4, 7, 21, 17, 14),
    ),
    "robocopy/ripvannwinkler_robocopy_NFL_MT16.log": Case(
        ROBOCOPY / "ripvannwinkler_robocopy_NFL_MT16.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "10"),
            _p("files.copied", "10"),
            _p("bytes.total", "76.290", GIB),
            _p("time.total_s", "315"),
            _p("time.copied_s", "42"),
            _p("time.extras_s", "8"),
            _p("speed.bytes_per_s", "1915409756"),
            _p("speed.mb_per_min", "109600.625"),
            _p("elapsed_s", "51"),  # 11:08:15 AM .. 11:09:06 AM
        ),
        time=_at(2026, 7, 24, 11, 8, 15),
    ),
    "robocopy/sosukigara_robocopy_jaJP_cp932_MT32_error.log": Case(
        ROBOCOPY / "sosukigara_robocopy_jaJP_cp932_MT32_error.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "24"),
            _p("files.total", "229"),
            _p("bytes.total", "39.08", MIB_B),
            _p("time.total_s", "5"),
            _p("speed.bytes_per_s", "191497299"),
            _p("speed.mb_per_min", "10957.563"),
        ),
        time=_at(2026, 1, 13, 17, 59, 24),
    ),
    "robocopy/valencale_robocopy_ptBR_cp850.log": Case(
        ROBOCOPY / "valencale_robocopy_ptBR_cp850.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "7"),
            _p("dirs.extras", "15"),
            _p("files.total", "16"),
            _p("files.extras", "21"),
            _p("bytes.total", "108.6", KIB),
            _p("bytes.copied", "102.2", KIB),
            _p("bytes.extras", "3.19", MIB_B),
            _p("speed.bytes_per_s", "9521090"),
            _p("speed.mb_per_min", "544.801"),
        ),
        time=_at(2026, 5, 15, 10, 55, 28),
    ),
    "robocopy/wxzjt_robocopy_zhCN_gbk.log": Case(
        ROBOCOPY / "wxzjt_robocopy_zhCN_gbk.log",
        {"timezone": "UTC"},
        (
            _p("dirs.total", "7"),
            _p("dirs.skipped", "7"),
            _p("files.total", "53"),
            _p("files.skipped", "53"),
            _p("bytes.total", "321.5", KIB),
            _p("bytes.skipped", "321.5", KIB),
        ),
        time=_at(2026, 3, 6, 11, 36, 20),
    ),
    # Event logs: whole-ms boot phases; durations between two records' 7-digit times
    "eventlog_logon/aaronthopliss_DiagnosticsPerformance_Operational.evtx": Case(
        EVTX / "aaronthopliss_DiagnosticsPerformance_Operational.evtx",
        figures=(
            _p("boot.total_ms", "149019"),
            _p("boot.main_path_ms", "55220"),
            _p("boot.post_boot_ms", "93799"),
            _p("boot.user_logon_wait_ms", "4844"),
            _p("boot.os_loader_ms", "3427"),
        ),
        time=_at(2016, 2, 13, 17, 23, 53).replace(microsecond=575067),  # BootStartTime
    ),
    "eventlog_logon/aaronthopliss_GroupPolicy_Operational_small.evtx": Case(
        EVTX / "aaronthopliss_GroupPolicy_Operational_small.evtx",
        figures=(
            # 4000 at 17:24:45.7759761 -> 8000 at 17:24:46.0168377
            _p(
                "gpo.processing_ms",
                "240.8616",
                subject="computer",
                time=_at(2016, 2, 13, 17, 24, 45).replace(microsecond=775976),
            ),
            # 4001 at 17:24:52.1956771 -> 8001 at 17:24:52.4875453
            _p(
                "gpo.processing_ms",
                "291.8682",
                subject="user",
                time=_at(2016, 2, 13, 17, 24, 52).replace(microsecond=195677),
            ),
        ),
    ),
    "eventlog_logon/omerbenamram_GroupPolicy_Operational.evtx": Case(
        EVTX / "omerbenamram_GroupPolicy_Operational.evtx",
        figures=(
            # 4001 at 2019-02-25T20:46:47.8141666Z, its 8001 888.6492 ms later
            _p(
                "gpo.processing_ms",
                "888.6492",
                subject="user",
                time=_at(2019, 2, 25, 20, 46, 47).replace(microsecond=814167),
            ),
            _p("gpo.processing_ms", "38.6264", subject="computer"),
            _p("gpo.processing_ms", "58.7854", subject="user"),
        ),
    ),
    # Perfmon: every cell as the file wrote it (a 20-digit decimal is the double PDH printed)
    "perfmon_csv/iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv": Case(
        PERFMON / "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv",
        {"host": "I-MEDUSA"},
        samples=(  # 11/14/2025 13:46:01.736 at bias -480
            Sample(
                "PhysicalDisk",
                "0 C:",
                "% Disk Time",
                _at(2025, 11, 14, 5, 46, 1).replace(microsecond=736000),
                "1.0203296383395057401",
            ),
            Sample(
                "PhysicalDisk",
                "0 C:",
                "Avg. Disk Queue Length",
                _at(2025, 11, 14, 5, 46, 2).replace(microsecond=752000),
                "0.52806744767674540508",
            ),
            Sample(
                "PhysicalDisk",
                "0 C:",
                "Current Disk Queue Length",
                _at(2025, 11, 14, 5, 47, 0).replace(microsecond=743000),
                "0",
            ),
        ),
    ),
    "perfmon_csv/narmadha_DataCollector01_LogicalDisk_IST.csv": Case(
        PERFMON / "narmadha_DataCollector01_LogicalDisk_IST.csv",
        {"host": "IMPC3116"},
        samples=(  # 09/19/2017 09:51:54.050 at bias -330
            Sample(
                "LogicalDisk",
                "C:",
                "Avg. Disk Read Queue Length",
                _at(2017, 9, 19, 4, 21, 54).replace(microsecond=50000),
                "0.032083023520161361",
            ),
            Sample(
                "LogicalDisk",
                "C:",
                "Avg. Disk Read Queue Length",
                _at(2017, 9, 19, 4, 26, 39).replace(microsecond=72000),
                "0.015607940487696648",
            ),
        ),
    ),
    "perfmon_csv/rajitharul_perfmon_SriLanka_1.2MB.csv": Case(
        PERFMON / "rajitharul_perfmon_SriLanka_1.2MB.csv",
        {"host": "DESKTOP-FUOCR3U"},
        samples=(  # 04/28/2023 05:56:03.500 at bias -330
            Sample(
                "Processor",
                "_Total",
                "% Processor Time",
                _at(2023, 4, 28, 0, 26, 3).replace(microsecond=500000),
                "13.959073156484624434",
            ),
            Sample(
                "Memory",
                "",
                "Available MBytes",
                _at(2023, 4, 28, 0, 25, 48).replace(microsecond=490000),
                "7638",
            ),
            Sample(
                "Memory",
                "",
                "Available MBytes",
                _at(2023, 4, 30, 0, 27, 13).replace(microsecond=537000),
                "8122",
            ),
        ),
    ),
    "perfmon_csv/waflia_DataCollector01_ruRU_cp1251.csv": Case(
        PERFMON / "waflia_DataCollector01_ruRU_cp1251.csv",
        {"host": "DESKTOP-LRPVSK4", "timezone": "Europe/Moscow"},
        samples=(  # 09/20/2021 16:48:18.945 Moscow time; Процесс(Idle)\% загруженности процессора
            Sample(
                "Process",
                "Idle",
                "% Processor Time",
                _at(2021, 9, 20, 13, 48, 18).replace(microsecond=945000),
                "1071.0072491149669531",
            ),
        ),
    ),
}

# Files with nothing to store, and what the project does with them.
# sysstat: sadf's fields copied as printed (line of sadf -d noted; sadf -j holds the same numbers)
_SADF_SAMPLES = (
    # 300: SYSSTAT.TEST;31;2019-04-18 13:20:29 UTC;sdb;0.67;22.60;0.00;0.00;33.62;0.10;47.00;0.05
    Sample("PhysicalDisk", "sdb", "Disk Transfers/sec", SADF_AT, "0.67"),
    Sample("PhysicalDisk", "sdb", "Avg. Disk Queue Length", SADF_AT, "0.10"),
    # 257: SYSSTAT.TEST;31;2019-04-18 13:20:29 UTC;3;956;3.16;3.24;3.43;0
    Sample("System", "", "Load Average 1 min", SADF_AT, "3.16"),
    Sample("System", "", "Run Queue Length", SADF_AT, "3"),
)
CASES.update(
    {
        "sysstat/sysstat-tests_sadf-d_A.csv": Case(
            SYSSTAT / "sysstat-tests_sadf-d_A.csv", samples=_SADF_SAMPLES
        ),
        "sysstat/sysstat-tests_sadf-j_A.json": Case(
            SYSSTAT / "sysstat-tests_sadf-j_A.json", samples=_SADF_SAMPLES
        ),
        # sadf -d -T: local time labelled "EST" for a date in EDT; the upload's zone decides (UTC-4)
        # 2: SYSSTAT.TEST;31;2019-04-18 09:20:19 EST;-1;2.15;12.50;2.36;0.12;0.00;82.88
        "sysstat/sysstat-tests_sadf-d_T_NewYork.csv": Case(
            SYSSTAT / "sysstat-tests_sadf-d_T_NewYork.csv",
            meta={"timezone": "America/New_York"},
            samples=(
                Sample("Processor", "_Total", "% User Time", _at(2019, 4, 18, 13, 20, 19), "2.15"),
                Sample("Processor", "_Total", "% Idle Time", _at(2019, 4, 18, 13, 20, 19), "82.88"),
            ),
        ),
    }
)

REFUSED = {
    # a binary perfmon log: answered with the command that converts it
    "perfmon_blg/txrx_BasicPerfCounters.blg": "relog",
    # cut off before robocopy's summary: no figure was printed
    "robocopy/ahmad_robocopy_utf16_arabic_mojibake_truncated.log": "the log ends before its summary",
    # dotnet-counters output, not a format Headroom reads (not PDH: no "(PDH-CSV 4.0)" header)
    "get_counter/martin11011_dotnet-counters_deDE.csv": "",
}

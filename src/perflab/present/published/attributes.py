"""RT-2019's figures that its text prints in sentences and its 2048 MB table, by the names its
source gives them.

Every value here is one the RT-2019 text (shared/studies 000) prints; values its source defines but
the text never prints are not kept (a test checks each value against the text). Names compare
case-insensitively.
"""

from __future__ import annotations

RT2019_ATTRIBUTES: tuple[tuple[str, float], ...] = (
    ("quarkusNativeMaxThroughputIncrease", 38.4),
    ("quarkusJvmMaxThroughputIncrease", 136),
    ("quarkusJvmmaxresponsetimereduction", 66.3),
    ("2gThorntailMaxInstances", 3),
    ("2gThorntailMaxThroughput", 111246),
    ("2gThorntailMaxThroughputCompareThorntail", 100),
    ("2gQuarkusJvmMaxInstances", 4),
    ("2gQuarkusJvmMaxThroughput", 308472),
    ("2gQuarkusJvmMaxCompareThorntail", 277),
    ("2gQuarkusJvmMaxCompareThorntailIncrease", 177.3),
    ("2gQuarkusNativeMaxInstances", 16),
    ("2gQuarkusNativeMaxThroughput", 717456),
    ("2gQuarkusNativeMaxThroughputCompareThorntail", 645),
    ("2gQuarkusNativeMaxCompareThorntailIncrease", 545),
    ("quarkusNativeNumberRequestsMillion", 33),
    ("thorntailMeanResponseTime40", 1.69),
    ("quarkusJvmMeanResponseTime40", 0.91),
    ("quarkusNativeMeanResponseTime40", 2.43),
    ("quarkusNativeMaxResponseTimeReduction", 42.7),
    ("thorntailMaxResponseTime", 145.3),
    ("quarkusJvmMaxResponseTime", 65.01),
    ("quarkusNativeMaxResponseTime", 83.27),
    ("thorntailStartTime", 8764),
    ("quarkusJvmStartTime", 1629),
    ("quarkusNativeStartTime", 18),
    ("thorntailRSS", 651),
    ("quarkusJvmRSS", 414),
    ("quarkusNativeRSS", 122),
    ("quarkusJvmRssCompareThorntail", 63.6),
    ("quarkusNativeRssCompareThorntail", 18.7),
    ("quarkusJvmThroughputCompareThorntail", 108.0),
    ("quarkusNativeThroughputCompareThorntail", 20.9),
    ("thorntailMaxThroughput", 37082),
    ("quarkusJvmMaxThroughput", 77118),
    ("quarkusNativeMaxThroughput", 44841),
)


def definitions(name: str) -> list[float]:
    """Every value kept for a name, in order (names compare case-insensitively)."""
    return [v for n, v in RT2019_ATTRIBUTES if n.lower() == name.lower()]


def printed(name: str) -> float:
    """What the text prints for a name (the last value kept, should one be kept twice)."""
    values = definitions(name)
    if not values:
        raise KeyError(f"RT-2019 defines no attribute {name!r}")
    return values[-1]

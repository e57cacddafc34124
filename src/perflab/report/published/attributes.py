"""RT-2019's AsciiDoc attributes that carry figures, as its source defines them, in order.

The study's text prints these attributes, not literal numbers. AsciiDoc attribute names are
case-insensitive and a later definition replaces an earlier one, so what a reader sees is the
last definition of a name; the source defines quarkusNativeMaxResponseTimeReduction twice.
"""

from __future__ import annotations

RT2019_ATTRIBUTES: tuple[tuple[str, float], ...] = (
    ("quarkusNativeMaxThroughputIncrease", 38.4),
    ("quarkusNativeMaxResponseTimeReduction", 55.6),
    ("quarkusJvmMaxThroughputIncrease", 136),
    ("quarkusJvmmaxresponsetimereduction", 66.3),
    ("quarkusJvmNativeMemoryComparison", 240),
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
    ("quarkusNativeNumberRequests", 33400000),
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
    """Every value the source gives an attribute, in order (names compare case-insensitively)."""
    return [v for n, v in RT2019_ATTRIBUTES if n.lower() == name.lower()]


def printed(name: str) -> float:
    """What the rendered text shows for an attribute: its last definition."""
    values = definitions(name)
    if not values:
        raise KeyError(f"RT-2019 defines no attribute {name!r}")
    return values[-1]

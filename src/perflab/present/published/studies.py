"""The three studies: what each measured and how, their texts, and the lab's app/mode for each of their names."""

from __future__ import annotations

from dataclasses import dataclass

# The studies' names for what they measured -> the lab's app/mode.
TARGETS = {
    "A": "spring-boot/jvm",  # LAB-2020 "Framework A" (Spring Boot on Tomcat)
    "Spring": "spring-boot/jvm",  # KT-2020
    "Q-JVM": "quarkus/jvm",
    "Q-native": "quarkus/native",
    "Go": "go-reference/native",
    "Thorntail": "thorntail/jvm",
}

# KT-2020's own Kotlin services as rebuilt here, in both variants: the blog's labels for each
# variant's app/mode ("Spring as published" is the blog's Spring service, as the blog wrote it).
# Only the as-published variant is what the blog measured; "fixed" is the same code without its
# three costly choices, which the blog did not measure. No native image is built of them.
KT2020_VARIANTS = {"as published": "as-published", "fixed": "fixed"}
KT2020_APPS = {"Spring": "kt2020-spring", "Q-JVM": "kt2020-quarkus"}
for _variant, _mode in KT2020_VARIANTS.items():
    for _label, _app in KT2020_APPS.items():
        TARGETS[f"{_label} {_variant}"] = f"{_app}/{_mode}"


@dataclass(frozen=True)
class Study:
    key: str
    title: str
    setting: str
    baseline: str  # the label every ratio of this study divides by
    versions: str  # the framework and JDK versions the study names
    environment: str  # its machines and services, as the study describes them

    def facts(self) -> list[str]:
        """The study's versions and machines, as the report's study method lists them."""
        return [f"the study's versions: {self.versions}", f"the study's environment: {self.environment}"]


STUDIES = {
    "RT-2019": Study("RT-2019", '"Quarkus Runtime Performance" (2019)',
                     "fruits CRUD on PostgreSQL; Quarkus 0.18 JVM and native vs Thorntail 2.4; "
                     "wrk from a separate machine over 10 GbE, 1..40 connections", "Thorntail",
                     "Quarkus 0.18.0 (JVM and native), Thorntail 2.4.0.Final; Java HotSpot(TM) 64-Bit Server VM "
                     "25.191-b12 (JDK 8u191); PostgreSQL 10.5 (postgres:10.5 in docker)",
                     "app and database each in a docker container on the system under test: 32 x Intel Xeon "
                     "E5-2640 v3 @ 2.60GHz, RHEL 7.6, 262 GB, 10G Ethernet; wrk on the client: 24 x Intel Xeon "
                     "E5-2640 @ 2.80GHz, RHEL 7.6, 64 GB"),
    "LAB-2020": Study("LAB-2020", 'analyst "Quarkus lab validation" (2020)',
                      "todo app on PostgreSQL; Quarkus JVM and native vs Framework A (Spring Boot on "
                      "Tomcat); cgroups of 4 cores / 256 MB (lab 1.1: 1 core / 500 MB), -Xmx64m", "A",
                      "Framework A and its version are not named, nor the Quarkus version of labs 1.1-3.2; the JVM "
                      "apps' image fabric8/java-alpine-openjdk8-jre (OpenJDK 8), the native one's ubi8/ubi-minimal; "
                      "PostgreSQL 10.5 (postgres:10.5); labs 4.1.1-4.1.3: Quarkus 1.2.1.Final, Java SE 11, Maven 3.6",
                      "labs 1.1, 2.1 and 3.1 on Bare-Metal Environment A: RHEL Server 7.7, 2 x Intel Xeon E5620 @ "
                      "2.40GHz (8 cores, HT), 157 GB, Podman, cgroups of 4 cores / 256 MB; lab 1.3 on Bare-Metal "
                      "Environment B: RHEL 8.0, 2 x Intel Xeon E5-2690 0 @ 2.90GHz (32 cores, HT), 264 GB, Podman, "
                      "cgroups of 4 cores / 256 MB; labs 1.2 and 3.2 on OpenShift 4.2, 3 worker nodes of AWS "
                      "m4.4xlarge (Xeon E5-2686 v4 @ 2.3 GHz or E5-2676 v3 @ 2.4 GHz, 16 vCPU, 64 GB)"),
    "KT-2020": Study("KT-2020", '"Spring Boot 2 vs Quarkus" blog (2020, Kotlin)',
                     "data-object API on H2, pool 10..100; 11 launches; wrk -t2 -c10", "Spring",
                     "Quarkus 1.3.1.Final (quarkus-kotlin, -resteasy, -resteasy-jackson, -agroal, -jdbc-h2); Spring "
                     "Boot 2.2.6.RELEASE (starter-web, starter-data-jdbc; dependency-management 1.0.9.RELEASE); "
                     "Kotlin 1.3.71; H2 1.4.200 (Spring's build; Quarkus's from its BOM, not named); both built for "
                     "Java 11 (source, target and Kotlin jvmTarget 11), the JDK they ran on not named",
                     "each app and the H2 server in its own docker container (docker-compose), the launches one at a "
                     "time, wrk in a container of its own; the machine is not described"),
}


# Each study's text, as the folder of the studies' texts names it (see its README).
TEXTS = {"RT-2019": "000_6f4242bf9e58be3e.txt", "LAB-2020": "002_7908454aa356699b.txt",
         "KT-2020": "003_dba97c6e4dbea2a0.txt"}


def target_of(label: str) -> str:
    return TARGETS[label]

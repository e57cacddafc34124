"""The scripted edits, per app: /hello's text (or, for a stream app, its transformation), an edit
that does not compile ("broken": an undefined name next to the text; its fix is the next compiling
change), /fruits' ordering in its service, and a new endpoint in a new file (for Quarkus: one file
holding an imperative and a reactive endpoint, LAB-2020 4.1.3); each with what then shows over HTTP.

An edit of a tracked file is made on its tracked text (not on the previous edit), so a repeat never
depends on what the one before left behind; a new file is written whole.
"""

from __future__ import annotations

from dataclasses import dataclass

UNDEFINED = "perflabUndefinedName"


@dataclass(frozen=True)
class HelloSource:
    file: str          # relative to the app's folder
    text: str          # the greeting's literal start in the tracked file

    def changed(self, tag: str) -> tuple[str, str, str]:
        """(old, new, what the response then shows) for a compiling change of the text."""
        shown = f"Hello ({tag}) from"
        return self.text, self.text.replace("Hello from", shown), shown

    def broken(self) -> tuple[str, str]:
        """(old, new) for an edit that does not compile: an undefined name before the literal."""
        return self.text, f"{UNDEFINED} + {self.text}"


@dataclass(frozen=True)
class TransformSource(HelloSource):
    """A stream app's transformation: the change prefixes every record it transforms from then on."""

    def changed(self, tag: str) -> tuple[str, str, str]:
        shown = f"({tag}) "
        return self.text, f'"{shown}" + {self.text}', shown


HELLO = {
    "quarkus": HelloSource("src/main/java/dev/perflab/HelloResource.java", '"Hello from Quarkus ('),
    "spring-boot": HelloSource("src/main/java/dev/perflab/springboot/web/HelloController.java",
                               '"Hello from Spring Boot ('),
    "spring-webflux": HelloSource("src/main/java/dev/perflab/springwebflux/web/HelloController.java",
                                  '"Hello from Spring WebFlux ('),
    "thorntail": HelloSource("app/src/main/java/dev/perflab/thorntail/HelloResource.java",
                             '"Hello from Thorntail ('),
    "go-reference": HelloSource("handlers.go", '"Hello from Go ('),
}


TRANSFORM = {
    "stream-spring": TransformSource("src/main/java/dev/perflab/streamspring/Transform.java", "value.toUpperCase()"),
    "stream-quarkus": TransformSource("src/main/java/dev/perflab/streamquarkus/Transform.java", "value.toUpperCase()"),
}


# Business logic behind the DB endpoint: /fruits listed in descending name order instead of
# ascending (the seed's Cherry then before Apple). Repeats toggle the order, so each is a change.
FRUITS = {
    "quarkus": ("src/main/java/dev/perflab/FruitService.java", 'Fruit.listAll(Sort.by("name"))',
                'Fruit.listAll(Sort.by("name").descending())'),
    "spring-boot": ("src/main/java/dev/perflab/springboot/fruit/FruitService.java", "fruits.findAllByOrderByNameAsc()",
                    'fruits.findAll(org.springframework.data.domain.Sort.by("name").descending())'),
    "spring-webflux": ("src/main/java/dev/perflab/springwebflux/fruit/FruitService.java",
                       "fruits.findAllByOrderByNameAsc()",
                       "fruits.findAllByOrderByNameAsc().sort((a, b) -> b.getName().compareTo(a.getName()))"),
    "thorntail": ("app/src/main/java/dev/perflab/thorntail/FruitResource.java", "order by f.name", "order by f.name desc"),
    "go-reference": ("store.go", "ORDER BY name", "ORDER BY name DESC"),
}


def descending(body: str) -> bool | None:
    """Whether a /fruits body lists the seed's Cherry before Apple (None: not a list holding both)."""
    cherry, apple = body.find('"Cherry"'), body.find('"Apple"')
    return None if cherry < 0 or apple < 0 else cherry < apple


@dataclass(frozen=True)
class NewEndpoint:
    """A new source file holding a new endpoint (the first save creates it, later saves change its
    text), plus, where routes are wired by hand (Go's ServeMux), the line that wires it."""

    edit: str                                     # the edit's name in the figures
    file: str                                     # relative to the app's folder
    source: str                                   # the file, with TAG where the response text changes
    shows: dict[str, str]                         # path -> the text it answers (with TAG)
    wiring: tuple[str, str, str] | None = None    # (file, old, new) in the tracked sources


# LAB-2020 4.1.3: one new source file holding an imperative and a reactive endpoint (a new endpoint
# the first time, a change of both the next times); only where the framework serves both styles
# side by side in one class.
MIXED = {
    "quarkus": ("src/main/java/dev/perflab/MixedResource.java", """package dev.perflab;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

@Path("/mixed")
public class MixedResource {
    @GET
    @Path("imperative")
    @Produces(MediaType.TEXT_PLAIN)
    public String imperative() {
        return "imperative (TAG)";
    }

    @GET
    @Path("reactive")
    @Produces(MediaType.TEXT_PLAIN)
    public Uni<String> reactive() {
        return Uni.createFrom().item("reactive (TAG)");
    }
}
"""),
}
MIXED_PATHS = {"/mixed/imperative": "imperative (TAG)", "/mixed/reactive": "reactive (TAG)"}


ENDPOINT_PATH, ENDPOINT_TEXT = "/devloop/greeting", "new endpoint (TAG)"


def _java_endpoint(package: str, folder: str, body: str) -> NewEndpoint:
    return NewEndpoint("endpoint", f"{folder}/{package.replace('.', '/')}/DevloopGreeting.java",
                       f"package {package};\n\n{body}", {ENDPOINT_PATH: ENDPOINT_TEXT})


# The idiom of each app for one more GET endpoint answering text: a Spring MVC controller, a
# WebFlux controller returning a Mono, a JAX-RS resource, a Go handler method and its route.
ENDPOINT = {
    "spring-boot": _java_endpoint("dev.perflab.springboot.web", "src/main/java", """\
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class DevloopGreeting {

    @GetMapping(path = "/devloop/greeting", produces = MediaType.TEXT_PLAIN_VALUE)
    public String greeting() {
        return "new endpoint (TAG)";
    }
}
"""),
    "spring-webflux": _java_endpoint("dev.perflab.springwebflux.web", "src/main/java", """\
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import reactor.core.publisher.Mono;

@RestController
public class DevloopGreeting {

    @GetMapping(path = "/devloop/greeting", produces = MediaType.TEXT_PLAIN_VALUE)
    public Mono<String> greeting() {
        return Mono.just("new endpoint (TAG)");
    }
}
"""),
    "thorntail": _java_endpoint("dev.perflab.thorntail", "app/src/main/java", """\
import javax.enterprise.context.ApplicationScoped;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

@Path("/devloop/greeting")
@ApplicationScoped
public class DevloopGreeting {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String greeting() {
        return "new endpoint (TAG)";
    }
}
"""),
    # Go: the handler in a new file, its route in routes(); the other edits of handlers.go start from
    # its tracked text, so each round wires the route anew
    "go-reference": NewEndpoint("endpoint", "devloop_greeting.go", """\
package main

import (
	"io"
	"net/http"
)

func (s *server) devloopGreeting(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "new endpoint (TAG)")
}
""", {ENDPOINT_PATH: ENDPOINT_TEXT},
        wiring=("handlers.go", 'route(mux, "/hello", methods{"GET": s.hello})\n',
                'route(mux, "/hello", methods{"GET": s.hello})\n'
                '\troute(mux, "/devloop/greeting", methods{"GET": s.devloopGreeting})\n')),
    # LAB-2020 4.1.3: Quarkus's new endpoint is the file holding an imperative and a reactive one
    "quarkus": NewEndpoint("mixed", *MIXED["quarkus"], MIXED_PATHS),
}


def where_it_points(text: str, file: str) -> int | None:
    """The 1-based line of `text` that first names the edited file (its base name) next to a line
    number, e.g. `HelloResource.java:[21,16]` or `handlers.go:75:`: where a developer finds the
    meaningful line. None when the output never names it."""
    base = file.rsplit("/", 1)[-1]
    for i, line in enumerate(text.splitlines(), 1):
        at = line.find(base)
        if at >= 0 and any(c.isdigit() for c in line[at + len(base):at + len(base) + 8]):
            return i
    return None

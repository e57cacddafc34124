"""The report's templates are read once, when a run starts: a template changed on disk while the run
measures does not change the report it writes at the end."""

from __future__ import annotations

from perflab.present import templating


def test_a_template_changed_after_the_first_read_does_not_change_what_is_rendered(tmp_path, monkeypatch):
    (tmp_path / "page.html.j2").write_text("before {{ x }}")
    monkeypatch.setattr(templating, "template_folder", lambda: tmp_path)
    templating.templates.cache_clear()
    try:
        assert templating.templates().get_template("page.html.j2").render(x=1) == "before 1"
        (tmp_path / "page.html.j2").write_text("after {{ x }}")
        (tmp_path / "new.html.j2").write_text("new")
        assert templating.templates().get_template("page.html.j2").render(x=2) == "before 2"
        assert "new.html.j2" not in templating.templates().list_templates()
    finally:
        templating.templates.cache_clear()


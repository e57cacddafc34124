"""The presentation kit the scenarios and the report share: tables and their number formats,
Plotly charts and their inputs, timelines, the Jinja2 templates, the fine print every chart states of
its runs, KT-2020's tables, and the studies as data (published/)."""

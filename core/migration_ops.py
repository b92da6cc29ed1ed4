"""Operations the apps' migrations share.

`adopt_tables`: take over the tables of a database made when these models lived in the
project package. Such a database has the ``backoffice_*`` tables and content types; a new one
has neither, and the operation does nothing there.

`move_content_types`: a model that moved to another app keeps its table (the apps' migrations
change the state only); its content type, and with it its permissions, follows it here.

`extended_statistics`: PostgreSQL statistics on correlated columns.
"""

from django.db import migrations


def adopt_tables(app_label: str, model_names: list[str]) -> migrations.RunPython:
    def forwards(apps, schema_editor):
        existing = set(schema_editor.connection.introspection.table_names())
        for name in model_names:
            model = apps.get_model(app_label, name)
            old = f"backoffice_{name}"
            if model._meta.managed and old in existing and model._meta.db_table not in existing:
                schema_editor.alter_db_table(model, old, model._meta.db_table)
        content_type = apps.get_model("contenttypes", "ContentType")
        for name in model_names:
            if not content_type.objects.filter(app_label=app_label, model=name).exists():
                content_type.objects.filter(app_label="backoffice", model=name).update(app_label=app_label)

    return migrations.RunPython(forwards, migrations.RunPython.noop)


def move_content_types(old_app: str, new_app: str, model_names: list[str]) -> migrations.RunPython:
    def move(source: str, target: str):
        def run(apps, schema_editor):
            content_type = apps.get_model("contenttypes", "ContentType")
            for name in model_names:
                if not content_type.objects.filter(app_label=target, model=name).exists():
                    content_type.objects.filter(app_label=source, model=name).update(app_label=target)

        return run

    return migrations.RunPython(move(old_app, new_app), move(new_app, old_app))


def extended_statistics(name: str, table: str, columns: str, kinds: str = "ndistinct, dependencies, mcv"):
    """PostgreSQL's statistics on columns a filter uses together (correlated), then ANALYZE,
    so that the planner knows a rare combination for one; nothing on other databases."""

    def create(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"CREATE STATISTICS IF NOT EXISTS {name} ({kinds}) ON {columns} FROM {table}")
            schema_editor.execute(f"ANALYZE {table}")

    def drop(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP STATISTICS IF EXISTS {name}")

    return migrations.RunPython(create, drop, elidable=False)

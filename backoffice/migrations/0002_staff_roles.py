"""Create the staff groups with the permissions of backoffice.roles.ROLE_PERMISSIONS."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from backoffice.roles import ROLE_PERMISSIONS, sync_role_groups


def create_roles(apps, schema_editor):
    # Permissions are normally made after all migrations; make them now to attach them.
    app_config = apps.get_app_config("backoffice")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None

    sync_role_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=[r.value for r in ROLE_PERMISSIONS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]

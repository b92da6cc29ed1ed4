from django import template
from django.template import engines
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def jinja_include(context, template_name: str, **extra):
    """Render a Jinja2 partial (core/jinja2.py) with this template's context and `extra`,
    as `{% include name with … %}` would a Django one. Jinja2 escapes what it renders."""
    partial = engines["jinja2"].get_template(template_name)
    return mark_safe(partial.render({**context.flatten(), **extra}, context.get("request")))  # noqa: S308

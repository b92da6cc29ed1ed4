from django import template

register = template.Library()


@register.inclusion_tag("notifications/bell.html", takes_context=True)
def bell(context):
    """The top bar's bell (templates/notifications/_bell.html), with the count the cache keeps
    (no query); without one, the count comes with its first poll, as soon as the page has loaded."""
    from notifications.views import bell_context

    return bell_context(context["request"], counted=False)


@register.filter
def kind_words(code: str) -> str:
    from notifications.kinds import kind_label

    return kind_label(code)

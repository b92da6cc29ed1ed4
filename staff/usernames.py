"""Usernames: one spelling per person, and none that passes for another's.

A username is kept normalised, NFKC then case-folded (Unicode's NFKC_Casefold, which Python
gives in two steps): "Demo-Admin" and its fullwidth twin are the one "demo-admin", and a member
logs in with any case. A new username is refused when it mixes scripts (Latin with Cyrillic:
"demo-admin" with a Cyrillic "e") or when its skeleton, each confusable character replaced by its prototype as in
Unicode TR 39 ("0" by "o", "m" by "rn"), is the skeleton of an existing member's username
("dem0-admin" beside "demo-admin"). Scripts and confusables are Unicode's data as the package
confusable_homoglyphs ships it (the check django-registration makes of usernames).

Usernames stored before normalisation were normalised by a migration, except where two would
have become one: those keep their spelling, and logging in with it exactly still works.
"""

import functools
import unicodedata

from confusable_homoglyphs import categories, confusables
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

TAKEN = "A staff member has this username already."


def normalized(username: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype. The data lists, for a character, either its one
    prototype or every character confusable with it (when it is a prototype itself); a pair that
    list each other alone take the lower of the two."""
    prototypes = {}
    for char, homoglyphs in confusables.confusables_data.items():
        if len(homoglyphs) != 1:
            continue
        glyph = homoglyphs[0]["c"].replace("\u200e", "")  # the data marks right-to-left glyphs
        back = [other["c"].replace("\u200e", "") for other in confusables.confusables_data.get(glyph, [])]
        prototypes[char] = min(char, glyph) if back == [char] else glyph
    return prototypes


def skeleton(username: str) -> str:
    """What `username` looks like: equal skeletons read alike."""
    prototypes = _prototypes()
    return normalized("".join(prototypes.get(char, char) for char in normalized(username)))


def _scripts(username: str) -> set[str]:
    return categories.unique_aliases(username) - {"COMMON"}


def validate_new(username: str, *, exclude_pk=None) -> str:
    """The normalised form of a username to give a member (new or renamed), or ValidationError:
    not a valid username, taken, a mix of scripts, or a look-alike of a member's."""
    name = normalized(username)
    get_user_model().username_validator(name)
    scripts = _scripts(name)
    if len(scripts) > 1:
        raise ValidationError(
            f"Use the letters of one script only: this username mixes {' and '.join(s.title() for s in sorted(scripts))}."
        )
    looks = skeleton(name)
    for other in get_user_model().objects.exclude(pk=exclude_pk).values_list("username", flat=True):
        if normalized(other) == name:
            raise ValidationError(TAKEN)
        if skeleton(other) == looks:
            raise ValidationError(f"This username looks like {other}'s: choose one that cannot be taken for it.")
    return name


def stored_spelling(username: str) -> str:
    """The username a login means: the one typed exactly, if it is stored so (a spelling kept
    by the migration), else its normalised form."""
    names = set(
        get_user_model()
        .objects.filter(username__in={username, normalized(username)})
        .values_list("username", flat=True)
    )
    return username if username in names else normalized(username)


def axes_username(request, credentials) -> str:
    """django-axes counts failures by the normalised username (AXES_USERNAME_CALLABLE): typing
    it in another case is no way round a lockout."""
    return normalized((credentials or {}).get("username") or "")

"""The staff app's audit actions in staff words."""

# What the audit log names the staff app's actions in (each app registers its own in core.labels,
# vocabulary ACTION).
ACTION_LABELS = {
    "auth.login": "Signed in",
    "auth.logout": "Signed out",
    "auth.mfa_added": "Added a second factor",
    "auth.mfa_removed": "Removed a second factor",
    "auth.locked_out": "Locked out after wrong guesses",
    "user.set_time_zone": "Chose a time zone",
    "staff.add": "Added a staff member",
    "staff.add_from_sso": "Staff member added by single sign-on",
    "staff.change_roles": "Changed the roles",
    "staff.roles_from_sso": "Roles set by single sign-on",
    "staff.deactivate": "Deactivated a staff member",
    "staff.reactivate": "Reactivated a staff member",
    "staff.reset_mfa": "Reset the second factor",
    "staff.lift_lockout": "Lifted a lockout",
    "staff.password_link": "Made a set-password link",
}

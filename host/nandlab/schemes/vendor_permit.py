"""The test-mode permit for a part's vendor commands (CoX-PM's and Search-in-Memory's).

Vendor commands reach past the datasheet as the test-mode operations do (MWS, inverse
read, ESP, test-mode feature addresses): the part runs its own logic on the page buffer
and the host sees no ONFI guarantee for it. So they take the same permit: a scheme
refuses to issue one unless it was given `allow_test_mode=True`, which the CLI
(`--allow-test-mode`) and campaigns (`allow_test_mode: true` at the top and on the step)
pass down.
"""

from __future__ import annotations

from nandlab.errors import RefusedOperation

PERMIT_HINT = (
    "use nandlab search --allow-test-mode, or in a campaign 'allow_test_mode: true' at its "
    "top and on the step (the API: the allow_test_mode argument)"
)


def require_permit(allowed: bool, what: str) -> None:
    """RefusedOperation naming the fix unless the permit was given."""
    if not allowed:
        raise RefusedOperation(
            f"{what} is a vendor command outside the datasheet, gated like the test-mode "
            f"operations: refused unless allowed; {PERMIT_HINT}"
        )

"""The way in: signing in, and the surveys a staff member starts from."""
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from staff.access import StaffRequest, staff_view
from surveys.models import Survey


class SignInView(auth_views.LoginView):
    """Django's sign-in, through the staff sign-in limits (staff/sign_in_limits.py): repeated failures pause an
    account at one address and slow an account or address; a browser that signed in before is trusted."""

    template_name = "staff/sign_in.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "local_passwords": settings.STAFF_LOCAL_PASSWORDS,
                "single_sign_on": settings.SINGLE_SIGN_ON, "provider_name": settings.OIDC_PROVIDER_NAME}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.STAFF_LOCAL_PASSWORDS:
            messages.error(request,
                           f"Signing in with a password is turned off: sign in with {settings.OIDC_PROVIDER_NAME}.")
            return redirect("staff:login")
        return super().post(request, *args, **kwargs)


@staff_view()
def home(request: StaffRequest) -> HttpResponse:
    return render(request, "staff/home.html", {"surveys": Survey.objects.order_by("-created_at")})

"""The way in: signing in, and the surveys a staff member starts from."""
from django.contrib.auth import views as auth_views
from django.shortcuts import render

from staff.access import staff_view
from surveys.models import Survey


class SignInView(auth_views.LoginView):
    """Django's sign-in, through the login limits (config/login_limits.py): repeated failures pause an account
    at one address and slow an account or address; a browser that signed in before is trusted."""

    template_name = "staff/sign_in.html"
    redirect_authenticated_user = True


@staff_view()
def home(request):
    return render(request, "staff/home.html", {"surveys": Survey.objects.order_by("-created_at")})

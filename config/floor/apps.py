from django.apps import AppConfig


class FloorConfig(AppConfig):
    name = "config.floor"
    label = "floor"
    verbose_name = "Bench floor"

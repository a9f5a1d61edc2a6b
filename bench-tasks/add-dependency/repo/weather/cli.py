import click
import httpx


@click.command()
@click.argument("city")
def main(city: str) -> None:
    """Print today's forecast for CITY."""
    data = httpx.get(f"https://wttr.in/{city}", params={"format": "j1"}).json()
    click.echo(data["current_condition"][0]["weatherDesc"][0]["value"])

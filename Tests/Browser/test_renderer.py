"""The renderer on its own: the harness (real renderer modules, fake server through a fake
transport) driven in headless Chromium. Needs no `scenesync` server. See README.md."""
from run_harness import Run, behaviour, make_driver, serve


def test_renderer_against_the_fake_server():
    httpd, base = serve()
    driver = make_driver()
    run = Run(driver, base)
    try:
        behaviour(run)
        run.collect_logs("renderer")
    finally:
        driver.quit()
        httpd.shutdown()
    assert run.failures == [], run.failures
    assert run.console_errors == [], run.console_errors

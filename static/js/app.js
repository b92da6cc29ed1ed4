// Small behaviours without inline script (the CSP forbids it).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  navigator.clipboard.writeText(button.dataset.copy).then(() => {
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = label; }, 1500);
  });
});

// While no time zone is kept for the user, tell the server the browser's, once per page
// load (the server keeps the first one; the user may change it on the time-zone page).
document.addEventListener("DOMContentLoaded", () => {
  const url = document.body.dataset.detectTimeZone;
  const zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!url || !zone) return;
  const token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  const body = new FormData();
  body.append("time_zone", zone);
  body.append("detected", "1");
  fetch(url, { method: "POST", body, headers: { "X-CSRFToken": token }, credentials: "same-origin" }).then((response) => {
    if (response.ok) delete document.body.dataset.detectTimeZone;
  });
});

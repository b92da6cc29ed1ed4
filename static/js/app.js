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

// Live pages (core/live.py): an unchanged version answers 304, which is not swapped; while the
// user works in a part marked data-live-guard (a box ticked, text typed, a dialog open) the
// change waits, and the next poll brings it again.
document.addEventListener("htmx:beforeSwap", (event) => {
  const poller = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (!poller || poller.id !== "live") return;
  if (event.detail.xhr.status === 304) {
    event.detail.shouldSwap = false;
    return;
  }
  const busy = Array.from(document.querySelectorAll("[data-live-guard]")).some(
    (part) =>
      part.querySelector("input[type=checkbox]:checked, dialog[open]") ||
      Array.from(part.querySelectorAll("textarea, input[type=text], input[type=search]")).some((field) => field.value),
  );
  if (busy) event.detail.shouldSwap = false;
});

// Exports (a[data-export]): fetched as a stream, so that the button can say how far it got
// ("Preparing… 12,345 rows"), then saved under the server's file name. Without script the
// link is a plain download.
// A refused filter answers 400 with the list's message (role=alert), said on the button.
class ExportRefused extends Error {}
document.addEventListener("click", async (event) => {
  const link = event.target.closest("a[data-export]");
  if (!link || !window.fetch || !window.ReadableStream) return;
  event.preventDefault();
  if (link.getAttribute("aria-busy") === "true") return;
  const label = link.textContent;
  link.setAttribute("aria-busy", "true");
  link.classList.add("busy");
  link.textContent = "Preparing…";
  try {
    const response = await fetch(link.href, { credentials: "same-origin" });
    if (!response.ok) {
      const page = response.status === 400 ? new DOMParser().parseFromString(await response.text(), "text/html") : null;
      const alert = page && page.querySelector("[role=alert]");
      throw alert ? new ExportRefused(alert.textContent.trim()) : new Error(String(response.status));
    }
    const reader = response.body.getReader();
    const parts = [];
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      for (let i = 0; i < value.length; i += 1) if (value[i] === 10) lines += 1;
      link.textContent = `Preparing… ${Math.max(lines - 1, 0).toLocaleString()} rows`;
    }
    const disposition = response.headers.get("Content-Disposition") || "";
    const name = (disposition.match(/filename="([^"]+)"/) || [])[1] || "export.csv";
    const url = URL.createObjectURL(new Blob(parts, { type: "text/csv" }));
    const save = document.createElement("a");
    save.href = url;
    save.download = name;
    document.body.appendChild(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    link.textContent = `${label} (${Math.max(lines - 1, 0).toLocaleString()} rows saved)`;
  } catch (error) {
    link.textContent = error instanceof ExportRefused ? `Not exported. ${error.message}` : "The export failed: try again";
  } finally {
    link.removeAttribute("aria-busy");
    link.classList.remove("busy");
    setTimeout(() => { link.textContent = label; }, 8000);
  }
});

// A live page in a background tab does not poll; it catches up within one tick once shown.
document.addEventListener("htmx:beforeRequest", (event) => {
  if (event.detail.elt && event.detail.elt.id === "live" && document.hidden) event.preventDefault();
});

// Transactions workspace: countdowns and confirmation dialogs (no inline script: strict CSP).
(() => {
  // <time data-countdown datetime="ISO">: "4:59 left", then "expired".
  const tick = () => {
    document.querySelectorAll("time[data-countdown]").forEach((el) => {
      const left = Math.floor((Date.parse(el.getAttribute("datetime")) - Date.now()) / 1000);
      if (Number.isNaN(left)) return;
      let text;
      if (left <= 0) {
        text = "expired";
        el.classList.add("expired");
      } else {
        const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
        text = `${h ? `${h}:${String(m).padStart(2, "0")}` : m}:${String(s).padStart(2, "0")} left`;
      }
      if (!el.dataset.original) el.dataset.original = el.textContent;
      el.textContent = `${text} (${el.dataset.original.trim()})`;
    });
  };
  tick();
  setInterval(tick, 1000);

  // [data-dialog-open="id"] opens that <dialog>; its href stays the fallback without JS.
  document.addEventListener("click", (event) => {
    const opener = event.target.closest("[data-dialog-open]");
    if (!opener) return;
    const dialog = document.getElementById(opener.dataset.dialogOpen);
    if (!dialog || typeof dialog.showModal !== "function") return;
    event.preventDefault();
    dialog.showModal();
  });
})();

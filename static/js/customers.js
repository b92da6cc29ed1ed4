// The compliance workspace's small behaviours (no inline script: the CSP forbids it).

// Preview an image before it is sent, and say at once when a file is too big or not a scan.
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const DOCUMENT_TYPES = ["image/png", "image/jpeg", "application/pdf"];

document.addEventListener("change", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.matches("input[type=file][data-preview]")) return;
  const wrapper = input.closest(".document-input");
  const preview = wrapper && wrapper.querySelector("img.preview");
  const file = input.files && input.files[0];
  let message = "";
  if (file && file.size > MAX_DOCUMENT_BYTES) {
    message = `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is 10 MB.`;
  } else if (file && !DOCUMENT_TYPES.includes(file.type)) {
    message = `${file.name} is not a PNG, JPEG or PDF file.`;
  }
  input.setCustomValidity(message);
  let note = wrapper && wrapper.querySelector(".file-error");
  if (wrapper && !note) {
    note = document.createElement("span");
    note.className = "file-error error";
    note.setAttribute("role", "alert");
    wrapper.appendChild(note);
  }
  if (note) note.textContent = message;
  if (!preview) return;
  if (file && !message && file.type.startsWith("image/")) {
    preview.src = URL.createObjectURL(file);
    preview.hidden = false;
  } else if (file) {
    preview.hidden = true;
  }
});

// A row marked "Remove" (without htmx) is dimmed, so the reviewer sees it will not be sent.
document.addEventListener("change", (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement) || !box.name.endsWith("-DELETE")) return;
  const row = box.closest(".row-card");
  if (row) row.classList.toggle("marked-removed", box.checked);
});

// The create page renders the chosen type's KYC or KYB part only: the other is asked for when
// its type is chosen, once (what is typed in it then stays, hidden, if the type changes back).
document.addEventListener("change", (event) => {
  const radio = event.target;
  if (!(radio instanceof HTMLInputElement) || radio.name !== "customer_type" || !radio.checked) return;
  const slot = document.getElementById(radio.value === "BUSINESS" ? "kyb-slot" : "kyc-slot");
  if (!slot || !slot.hasAttribute("data-empty") || !window.htmx) return;
  slot.removeAttribute("data-empty");
  window.htmx.ajax("GET", slot.dataset.url, { target: slot, swap: "outerHTML" });
});

/**
 * Island of the Maintenance page (src/modules/maintenance/views/maintenance.tsx): a delete button
 * confirmed in the shared confirm dialog (main.ts marks it `data-confirmed="1"` while it re-clicks it)
 * sends `confirmed=1` with its form, so the server deletes at once. A form sent any other way (no
 * JavaScript, or this file not loaded) lacks it and gets the server's confirm step page instead.
 */
document.addEventListener('submit', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-confirm-step')) return;
  const submitter = (e as SubmitEvent).submitter;
  if (!(submitter instanceof HTMLElement) || submitter.dataset.confirmed !== '1') return;
  let input = form.querySelector<HTMLInputElement>('input[name="confirmed"]');
  if (!input) {
    input = document.createElement('input');
    input.type = 'hidden';
    input.name = 'confirmed';
    form.append(input);
  }
  input.value = '1';
});

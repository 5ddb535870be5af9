/** What the dialog page needs: where to post, the login nonce, and why it cannot go on (if so). */
export interface DialogModel {
  appId: string;
  configId: string;
  /** Origin of the page that called FB.login: the only target of the dialog's messages. */
  openerOrigin: string | null;
  nonce: string;
  version: string;
  error: string | null;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> element: `<` escaped so no value can close the element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/**
 * The simulator's embedded-signup dialog (the popup FB.login opens). "Finish" creates a business account
 * with a phone number, then posts to the opener what the provider posts: the session-info message
 * (`WA_EMBEDDED_SIGNUP` / `FINISH`, version 3, a JSON string, reference §6.1), and the code for the SDK.
 * "Cancel" posts `CANCEL` with the step the customer was on. A bad configuration posts `ERROR`.
 */
export function renderDialog(m: DialogModel): string {
  const model = { openerOrigin: m.openerOrigin, nonce: m.nonce, appId: m.appId, configId: m.configId, version: m.version, error: m.error };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect a business account (simulated provider)</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 2rem; color: #1c1e21; }
  main { max-width: 32rem; margin: auto; }
  button { font: inherit; padding: .6rem 1.2rem; margin-right: .5rem; border-radius: .4rem; border: 1px solid #8a8d91; cursor: pointer; }
  #finish { background: #0866ff; color: #fff; border-color: #0866ff; }
  .error { color: #a50e0e; }
</style>
</head>
<body>
<main>
  <h1>Connect a business account</h1>
  ${
    m.error
      ? `<p class="error" role="alert">${escapeHtml(m.error)}</p>`
      : `<p>This is the provider simulator's embedded signup. Finishing creates a business account with a phone number and returns a code to the app <strong>${escapeHtml(m.appId)}</strong>.</p>
  <p><label><input type="checkbox" id="with-catalog" checked> Link a product catalog</label></p>
  <p><button type="button" id="finish">Finish</button><button type="button" id="cancel">Cancel</button></p>
  <p id="status" role="status" aria-live="polite"></p>`
  }
</main>
<script type="application/json" id="dialog-model">${scriptJson(model)}</script>
<script>
(function () {
  'use strict';
  var model = JSON.parse(document.getElementById('dialog-model').textContent);
  function post(message) {
    if (window.opener && model.openerOrigin) window.opener.postMessage(JSON.stringify(message), model.openerOrigin);
  }
  function sessionInfo(event, data) {
    post({ type: 'WA_EMBEDDED_SIGNUP', event: event, version: 3, data: data });
  }
  function authResponse(value) {
    post({ type: 'SIM_SDK_AUTH_RESPONSE', nonce: model.nonce, authResponse: value });
  }
  if (model.error) {
    sessionInfo('ERROR', { error_message: model.error });
    authResponse(null);
    return;
  }
  var finish = document.getElementById('finish');
  var cancel = document.getElementById('cancel');
  var status = document.getElementById('status');
  finish.addEventListener('click', function () {
    finish.disabled = true;
    cancel.disabled = true;
    status.textContent = 'Creating your business account…';
    fetch('/dialog/oauth/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: model.appId, config_id: model.configId, with_catalog: document.getElementById('with-catalog').checked })
    })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
      .then(function (r) {
        sessionInfo('FINISH', { phone_number_id: r.phone_number_id, waba_id: r.waba_id, business_id: r.business_id });
        authResponse({ code: r.code, userID: '', expiresIn: 0, graphDomain: 'facebook', data_access_expiration_time: 0 });
        status.textContent = 'Done. You can close this window.';
        setTimeout(function () { window.close(); }, 100);
      })
      .catch(function (e) {
        status.textContent = 'Something went wrong: ' + e.message;
        sessionInfo('ERROR', { error_message: e.message });
        authResponse(null);
      });
  });
  cancel.addEventListener('click', function () {
    sessionInfo('CANCEL', { current_step: 'BUSINESS_ACCOUNT_SELECTION' });
    authResponse(null);
    window.close();
  });
})();
</script>
</body>
</html>
`;
}

/**
 * The hosted signup page's script (inline, nonce-allowed, no framework). It loads the provider's SDK,
 * launches embedded signup with FB.login (response_type "code"), takes the business account and phone
 * number ids from the session-info `message` events of the provider's origins only (reference §6.1: the
 * data is a JSON string), and posts them with the code and the session's state to the gateway. Progress
 * and the outcome are announced in a live region; a final outcome redirects when the client has a URL.
 */
export const PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var REDIRECT_DELAY_MS = 1500;
  var SESSION_INFO_WAIT_MS = 15000;
  var cfg = JSON.parse(document.getElementById('signup-config').textContent);
  var startButton = document.getElementById('start');
  var statusEl = document.getElementById('status');
  var outcomeEl = document.getElementById('outcome');
  var STATE_TEXT = { todo: 'Not started', active: 'In progress', done: 'Done', failed: 'Failed' };
  var REASONS = {
    code_exchange_failed: 'The provider did not accept the authorization.',
    phone_registration_failed: 'The phone number could not be registered for messaging.',
    webhook_subscription_failed: 'Message notifications could not be turned on for the account.',
    catalog_lookup_failed: "The account's product catalog could not be read.",
    phone_number_in_use: 'This phone number is already connected to another account.',
    phone_number_missing: 'No phone number was chosen in the provider window.',
    session_info_missing: 'The provider did not share which account was chosen.',
    provider_error: 'The provider reported an error during signup.'
  };
  // idle → connecting (provider window open) → waiting (code received, ids not yet) → finishing → done
  var phase = 'idle';
  var sessionInfo = null;
  var code = null;
  var waitTimer = null;

  function say(text) { statusEl.textContent = text; }

  function setStep(name, state) {
    var li = document.getElementById('step-' + name);
    li.setAttribute('data-state', state);
    li.querySelector('.step-state').textContent = STATE_TEXT[state];
    if (state === 'active') li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }

  function showOutcome(kind, title, text, redirectUrl) {
    phase = 'done';
    clearTimeout(waitTimer);
    startButton.hidden = true;
    outcomeEl.hidden = false;
    outcomeEl.setAttribute('data-kind', kind);
    document.getElementById('outcome-title').textContent = title;
    document.getElementById('outcome-text').textContent = text;
    var link = document.getElementById('outcome-link');
    if (redirectUrl) {
      link.href = redirectUrl;
      link.textContent = 'Continue';
      link.hidden = false;
      say(title + ' Redirecting…');
      setTimeout(function () { window.location.assign(redirectUrl); }, REDIRECT_DELAY_MS);
    } else {
      if (kind === 'failure') {
        link.href = window.location.pathname;
        link.textContent = 'Start again';
        link.hidden = false;
      }
      say(title);
    }
    outcomeEl.focus();
  }

  // the customer may simply try again: same session, nothing was sent to the gateway
  function backToStart(text) {
    phase = 'idle';
    sessionInfo = null;
    code = null;
    clearTimeout(waitTimer);
    setStep('connect', 'todo');
    setStep('details', 'todo');
    setStep('finish', 'todo');
    startButton.disabled = false;
    startButton.textContent = 'Try again';
    say(text);
  }

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body)
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (json) { return { ok: res.ok, status: res.status, body: json }; });
    });
  }

  function errorText(r) {
    if (r.body && typeof r.body.detail === 'string') return r.body.detail + '.';
    return 'The gateway could not finish the signup (HTTP ' + r.status + ').';
  }

  function unreachable() {
    setStep('finish', 'failed');
    showOutcome('failure', 'Signup could not be completed', 'The gateway could not be reached. Check your connection and open the signup link again.', null);
  }

  function reportFailure(reason) {
    if (phase === 'finishing' || phase === 'done') return;
    phase = 'finishing';
    clearTimeout(waitTimer);
    setStep('details', 'failed');
    say('Recording the problem…');
    post(cfg.fail_url, { state: cfg.state, reason: reason }).then(function (r) {
      var text = REASONS[reason] + ' You can open the signup link again to retry.';
      showOutcome('failure', 'Signup could not be completed', r.ok ? text : errorText(r), r.ok && r.body ? r.body.redirect_url : null);
    }, unreachable);
  }

  function finish() {
    if (!code || !sessionInfo || (phase !== 'connecting' && phase !== 'waiting')) return;
    clearTimeout(waitTimer);
    phase = 'finishing';
    setStep('finish', 'active');
    say('Finishing the setup. This can take a few seconds…');
    var body = { state: cfg.state, code: code, business_account_id: sessionInfo.waba_id, phone_number_id: sessionInfo.phone_number_id };
    if (sessionInfo.business_id) body.provider_business_id = sessionInfo.business_id;
    post(cfg.complete_url, body).then(function (r) {
      var outcome = r.ok && r.body ? r.body : null;
      if (outcome && outcome.status === 'completed') {
        setStep('finish', 'done');
        showOutcome('success', 'Your account is connected', 'Signup is complete: messages can now be sent and received with this number.', outcome.redirect_url);
      } else if (outcome && outcome.status === 'failed') {
        setStep('finish', 'failed');
        var why = REASONS[outcome.reason] || 'Something went wrong while finishing the setup.';
        showOutcome('failure', 'Signup could not be completed', why + ' You can open the signup link again to retry.', outcome.redirect_url);
      } else {
        setStep('finish', 'failed');
        showOutcome('failure', 'Signup could not be completed', errorText(r), null);
      }
    }, unreachable);
  }

  // session-info events: only the provider's origins may speak, everything else is ignored
  window.addEventListener('message', function (event) {
    if (cfg.provider_origins.indexOf(event.origin) === -1) return;
    var data = event.data;
    if (typeof data === 'string') {
      try { data = JSON.parse(data); } catch (e) { return; }
    }
    if (!data || typeof data !== 'object' || data.type !== 'WA_EMBEDDED_SIGNUP') return;
    if (phase !== 'connecting' && phase !== 'waiting') return;
    var d = data.data || {};
    // v4 finishes as FINISH, or FINISH_WHATSAPP_BUSINESS_APP_ONBOARDING for a Business app number (coexistence)
    if (data.event === 'FINISH' || data.event === 'FINISH_WHATSAPP_BUSINESS_APP_ONBOARDING') {
      if (!d.waba_id || !d.phone_number_id) return;
      sessionInfo = { waba_id: String(d.waba_id), phone_number_id: String(d.phone_number_id), business_id: d.business_id ? String(d.business_id) : '' };
      setStep('details', 'done');
      finish();
    } else if (data.event === 'FINISH_ONLY_WABA') {
      reportFailure('phone_number_missing');
    } else if (data.event === 'CANCEL') {
      backToStart('Signup was cancelled in the provider window. You can start again when ready.');
    } else if (data.event === 'ERROR') {
      reportFailure('provider_error');
    }
  });

  function onLogin(response) {
    if (phase !== 'connecting') return;
    var auth = response && response.authResponse;
    if (!auth || !auth.code) {
      backToStart('The provider window was closed before signup finished. You can start again when ready.');
      return;
    }
    code = auth.code;
    setStep('connect', 'done');
    if (sessionInfo) { finish(); return; }
    phase = 'waiting';
    setStep('details', 'active');
    say('Waiting for the account details from the provider…');
    waitTimer = setTimeout(function () { reportFailure('session_info_missing'); }, SESSION_INFO_WAIT_MS);
  }

  startButton.addEventListener('click', function () {
    if (phase !== 'idle' || !window.FB) return;
    phase = 'connecting';
    startButton.disabled = true;
    setStep('connect', 'active');
    say('Complete the signup in the provider window.');
    try {
      window.FB.login(onLogin, {
        config_id: cfg.config_id,
        response_type: 'code',
        override_default_response_type: true,
        // Embedded Signup v4: the version and products come from the Login for Business configuration (config_id)
        extras: {}
      });
    } catch (e) {
      backToStart('The provider window could not be opened. Allow pop-ups for this page and try again.');
    }
  });

  window.fbAsyncInit = function () {
    window.FB.init({ appId: cfg.app_id, autoLogAppEvents: true, xfbml: false, version: cfg.api_version });
    startButton.disabled = false;
    say('Ready. Select “Connect account” to begin.');
  };
  var sdk = document.createElement('script');
  sdk.src = cfg.sdk_url;
  sdk.async = true;
  sdk.crossOrigin = 'anonymous';
  sdk.onerror = function () { say('The provider could not be reached. Check your connection and reload this page.'); };
  document.body.appendChild(sdk);
})();
`;

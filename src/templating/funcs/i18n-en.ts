/**
 * English strings for `L.T` (the subset of listmonk's i18n/en.json that e-mail templates use).
 * Unknown keys translate to the key itself, as listmonk does.
 */
export const EN_STRINGS: Readonly<Record<string, string>> = Object.freeze({
  'email.unsub': 'Unsubscribe',
  'email.unsubHelp': "Don't want to receive these e-mails?",
  'email.viewInBrowser': 'View in browser',
  'email.optin.confirmSub': 'Confirm subscription',
  'email.optin.confirmSubHelp': 'Confirm your subscription by clicking the below button.',
  'email.optin.confirmSubInfo': 'You have been added to the following lists:',
  'email.optin.confirmSubTitle': 'Confirm subscription',
  'email.optin.confirmSubWelcome': 'Hi',
  'email.optin.privateList': 'Private list',
  'email.data.title': 'Your data',
  'email.data.info': 'A copy of all data recorded on you is attached as a file in JSON format. It can be viewed in a text editor.',
  'email.status.campaignReason': 'Reason',
  'email.status.campaignSent': 'Sent',
  'email.status.campaignUpdateTitle': 'Campaign update',
  'email.status.importFile': 'File',
  'email.status.importRecords': 'Records',
  'email.status.importTitle': 'Import update',
  'email.status.status': 'Status',
  'public.unsub': 'Unsubscribe',
  'public.unsubTitle': 'Unsubscribe',
  'public.unsubHelp': 'Do you want to unsubscribe from this mailing list?',
  'public.manage': 'Manage',
  'public.managePrefs': 'Manage preferences',
  'public.viewArchive': 'View archive',
  'public.archiveTitle': 'Mailing list archive',
  'globals.terms.list': 'List',
  'globals.terms.lists': 'Lists',
  'subscribers.optinSubject': 'Confirm subscription',
});

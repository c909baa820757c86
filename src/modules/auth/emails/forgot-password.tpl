<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{{ L.T "email.forgotPassword.subject" }}</title>
  <style>
    @media only screen and (max-width: 620px) {
      .mr-container { width: 100% !important; }
      .mr-card { padding: 24px 18px !important; border-radius: 0 !important; }
    }
  </style>
</head>
<body style="margin: 0; padding: 0; background-color: #f2f4f7;">
  <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color: #f2f4f7;">
    <tr>
      <td align="center" style="padding: 32px 12px;">
        <table role="presentation" class="mr-container" width="600" cellpadding="0" cellspacing="0" border="0" style="width: 600px; max-width: 600px;">
          <tr>
            <td class="mr-card" style="padding: 36px 40px; background-color: #ffffff; border-radius: 8px; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; color: #1f2937;">
              <h1 style="margin: 0 0 24px; font-size: 22px; color: #111827;">{{ L.T "email.forgotPassword.subject" }}</h1>
              <p style="margin: 0 0 24px;">{{ L.T "email.forgotPassword.help" }}</p>
              <table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 24px;">
                <tr>
                  <td align="center" style="border-radius: 6px; background-color: #2563eb;">
                    <a href="{{ .ResetURL }}" target="_blank" style="display: inline-block; padding: 12px 28px; font-family: Helvetica, Arial, sans-serif; font-size: 16px; font-weight: bold; color: #ffffff; text-decoration: none; border-radius: 6px;">{{ L.T "email.forgotPassword.button" }}</a>
                  </td>
                </tr>
              </table>
              <p style="margin: 0; font-size: 13px; color: #6b7280;">{{ L.T "email.forgotPassword.info" }}</p>
            </td>
          </tr>
        </table>
      </td>
    </tr>
  </table>
</body>
</html>

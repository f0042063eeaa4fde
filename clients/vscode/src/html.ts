/** The Markdown side panel's page. Pure, so its escaping and CSP are unit-tested. */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Wrap rendered Markdown in a page that runs no script: model output may contain
 * HTML, and the CSP (no `script-src`) keeps it inert.
 */
export function markdownPage(bodyHtml: string, cspSource: string, title: string): string {
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource} 'unsafe-inline'`,
    `img-src ${cspSource} https: data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1em; line-height: 1.5; }
pre, code { font-family: var(--vscode-editor-font-family); }
pre { background: var(--vscode-textCodeBlock-background); padding: 0.6em; overflow-x: auto; }
</style>
</head>
<body>
${bodyHtml}
</body>
</html>`;
}

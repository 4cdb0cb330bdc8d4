/** Configuration problems: collected all at once, each with its file, line and key path, thrown as one ConfigError. */
import { ConfigError, type ConfigIssue } from './config-error.js';
import { formatKeyPath, type KeyPath, type TomlLocator } from './toml-source.js';

export { ConfigError, type ConfigIssue } from './config-error.js';

// ---------------------------------------------------------------------------------------------
// Collecting issues

export class Issues {
  private readonly list: ConfigIssue[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly locator: TomlLocator | undefined,
  ) {}

  add(path: KeyPath, message: string): void {
    const key = formatKeyPath(path);
    if (this.seen.has(`${key}\0${message}`)) return;
    this.seen.add(`${key}\0${message}`);
    this.list.push({ key: key === '' ? undefined : key, line: this.locator?.lineOf(path), message });
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    // Stable sort by line; issues without a line (nothing written in the file) go last.
    const sorted = [...this.list].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    const text = sorted.map((i) => this.render(i)).join('\n');
    const first = sorted[0];
    throw new ConfigError(text, { file: this.file, key: first?.key, line: first?.line, issues: sorted });
  }

  private render(issue: ConfigIssue): string {
    const where = issue.line === undefined ? this.file : `${this.file}:${issue.line}`;
    return issue.key === undefined ? `${where}: ${issue.message}` : `${where}: ${issue.key}: ${issue.message}`;
  }
}

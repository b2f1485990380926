import { describe, expect, it } from 'vitest';
import { resolveLocalFile } from '../../../src/catalog/local-files.js';

describe('resolveLocalFile with links of other schemes', () => {
  const noFile = () => undefined;

  it.each(['ftp://host/logo.png', 's3://bucket/logo.png', 'data:image/png;base64,AAAA'])(
    'says %s is not a link the service fetches, instead of "file not found"',
    (written) => {
      const result = resolveLocalFile(written, '/work', noFile);
      expect(result).toEqual({
        problem: {
          code: 'unsupported-url-scheme',
          message: `${JSON.stringify(written)} is neither an http(s) link nor a local file; the service fetches only http:// and https:// links`,
        },
      });
    },
  );

  it.each(['./logo.png', 'assets/logo.png', 'C:\\assets\\logo.png', 'C:/assets/logo.png'])(
    'treats %s as a path',
    (written) => {
      const result = resolveLocalFile(written, '/work', noFile);
      expect('problem' in result && result.problem.code).toBe('local-file-missing');
    },
  );
});

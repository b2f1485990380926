import type { ServiceClientOptions } from '../../service/client.js';
import type { ServiceClient } from '../../service/service-client.js';
import type { ClientEvent } from '../../service/client-event.js';
import type { Simulator } from '../../simulator/types.js';
import type { CommandContext } from '../../app/context.js';

// The HTTP client (undici), the logger (pino) and the simulator are imported here, when a command
// connects, not at the top: commands that stay offline (`validate --catalog`, `render`, `--help`)
// never load them, which keeps their start fast.

/** A client and, with `--simulate`, the in-process simulator behind it. */
export interface Connection {
  client: ServiceClient;
  /** Set with `--simulate`: durations of the run should scale with it. */
  simulator?: Simulator;
  /** 1 against the real service; the simulator's factor with `--simulate`. */
  timeScale: number;
  /** Which account the key pays from (`accountOfKey`); absent with `--simulate`. */
  account?: string;
  close(): Promise<void>;
}

/**
 * Opens the service the command will talk to: the real one (key from MEDIAGEN_API_KEY or
 * --api-key-file, base URL from --base-url or MEDIAGEN_BASE_URL) or, with --simulate, an embedded
 * simulator on 127.0.0.1 started in this process.
 */
export async function connect(
  ctx: CommandContext,
  onEvent?: (event: ClientEvent) => void,
  /** Limits from the command's flags, e.g. `--max-download-size`. */
  limits: Pick<ServiceClientOptions, 'maxDownloadBytes'> = {},
): Promise<Connection> {
  // Without a caller's own log (apply has one), `--log-file` records the client's requests and retries.
  const logger =
    onEvent === undefined && ctx.global.logFile !== undefined
      ? (await import('./logger.js')).createLogger(ctx.global.logFile)
      : undefined;
  const connection = await open(
    ctx,
    logger === undefined ? onEvent : (event) => logger.info({ event }, event.type),
    limits,
  );
  if (logger === undefined) return connection;
  return {
    ...connection,
    close: async () => {
      try {
        await connection.close();
      } finally {
        logger.flush();
      }
    },
  };
}

async function open(
  ctx: CommandContext,
  onEvent: ((event: ClientEvent) => void) | undefined,
  limits: Pick<ServiceClientOptions, 'maxDownloadBytes'>,
): Promise<Connection> {
  const eventOption = { ...limits, ...(onEvent === undefined ? {} : { onEvent }) };
  const { createServiceClient } = await import('../../service/client.js');
  if (ctx.global.simulate === true) {
    const { startSimulator } = await import('../../simulator/index.js');
    const { DEFAULT_RETRY_OPTIONS } = await import('../../service/retry-policy.js');
    const timeScale = ctx.global.simTimeScale ?? 0.02;
    const simulator = await startSimulator({ timeScale });
    const client = createServiceClient({
      baseUrl: simulator.baseUrl,
      apiKey: simulator.apiKey,
      // The simulator's key window is scaled; the client must not re-send past it either.
      retry: { idempotencyWindowMs: Math.round(DEFAULT_RETRY_OPTIONS.idempotencyWindowMs * timeScale) },
      ...eventOption,
    });
    return {
      client,
      simulator,
      timeScale,
      close: async () => {
        await client.close();
        await simulator.close();
      },
    };
  }
  const { resolveServiceConfig } = await import('../../service/config.js');
  const config = await resolveServiceConfig({
    env: ctx.env,
    ...(ctx.global.apiKeyFile === undefined ? {} : { apiKeyFile: ctx.global.apiKeyFile }),
    ...(ctx.global.baseUrl === undefined ? {} : { baseUrl: ctx.global.baseUrl }),
  });
  const client = createServiceClient({ ...config, ...eventOption });
  const { accountOfKey } = await import('../../service/account-of-key.js');
  return {
    client,
    timeScale: 1,
    account: accountOfKey(config.apiKey),
    close: () => client.close(),
  };
}

/** Runs `body` with a connection that is closed afterwards, whatever happens. */
export async function withConnection<T>(
  ctx: CommandContext,
  body: (connection: Connection) => Promise<T>,
  onEvent?: (event: ClientEvent) => void,
): Promise<T> {
  const connection = await connect(ctx, onEvent);
  try {
    return await body(connection);
  } finally {
    await connection.close();
  }
}

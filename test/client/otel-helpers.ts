import { context, metrics, propagation, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A reader collected by hand: no timer, nothing exported in the background. */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Real SDK providers recording in memory. */
export function otel() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    /** The data points of `http.client.request.duration`. */
    async durations() {
      const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
      const metric = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'http.client.request.duration');
      return {
        metric,
        points: (metric?.dataPoints ?? []) as {
          attributes: Record<string, unknown>;
          value: { count: number; sum?: number };
        }[],
      };
    },
    /** Registers both globally, as an app's SDK setup does. */
    register() {
      trace.setGlobalTracerProvider(tracerProvider);
      metrics.setGlobalMeterProvider(meterProvider);
    },
    unregister() {
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
    },
  };
}

-- Grafana's login: it reads the result tables and nothing else (the database
-- also holds password hashes and token digests). Run as the database owner
-- with the password in a psql variable; safe to run again (it then sets the
-- password and repeats the grants):
--
--   psql -v ON_ERROR_STOP=1 -v password='change-me-grafana' -f docker/grafana/reader.sql
--
-- compose's `grafana-reader` service runs it (`--profile grafana`, docs/grafana.md).
-- Tables that a later Headroom version adds need their own GRANT SELECT here.
SELECT set_config('headroom.grafana_password', :'password', false);

DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'grafana_reader') THEN
    EXECUTE format('ALTER ROLE grafana_reader LOGIN PASSWORD %L', current_setting('headroom.grafana_password'));
  ELSE
    EXECUTE format('CREATE ROLE grafana_reader LOGIN PASSWORD %L', current_setting('headroom.grafana_password'));
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO grafana_reader', current_database());
END
$$;

GRANT USAGE ON SCHEMA public TO grafana_reader;
GRANT SELECT ON core_campaign, core_scenario, core_run, core_run_hosts, core_runstep, core_host,
  timeseries_counterseries, counter_sample, counter_rollup_1m, measurement TO grafana_reader;

-- faultline database, schema version 4: the fleet's identity roster and the decision procedure's
-- full answer (docs/fleet.md "Identity roster", "Decision procedure"). Fields are only added.

-- JSON {"culprits": [{host, rank, device, logic_device, device_ip, pid, address}], "chain": [...],
--       "no_single_root": bool, "reason": text, "logic_device": n|null, "device_ip": text,
--       "agreed": [rule...], "disagreed": [rule...]}
ALTER TABLE fleet_first_failure ADD COLUMN answer TEXT NOT NULL DEFAULT '{}';

-- JSON {"logic_device": n|null, "size": n|null, "device_ip": text, "server_ip": text}
ALTER TABLE fleet_ranks ADD COLUMN identity TEXT NOT NULL DEFAULT '{}';

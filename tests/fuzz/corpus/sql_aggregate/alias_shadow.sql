SELECT count(*) AS name, "name" FROM slices -- c
GROUP BY name ORDER BY name /* x */ LIMIT 1, 3